import type { Statement } from "better-sqlite3";
import type { Db } from "./database.js";
import type { KeyRange, KvPair } from "../kv-driver.js";

interface KvRow {
  readonly key: string;
  readonly value: Buffer;
  readonly create_revision: number;
  readonly mod_revision: number;
}

const EMPTY = Buffer.alloc(0);

const pairOf = (row: KvRow): KvPair => ({ key: row.key, value: row.value, createRevision: row.create_revision, modRevision: row.mod_revision });

/** The driver's statements, prepared once; the primary key's BINARY collation orders keys by their bytes, as etcd does. */
export class SqliteKvStatements {
  private readonly selectRevision: Statement<[], number>;
  private readonly updateRevision: Statement<[number]>;
  private readonly selectOne: Statement<[string], KvRow>;
  private readonly selectRange: Statement<[string, string, number], KvRow>;
  private readonly selectRangeKeys: Statement<[string, string, number], Omit<KvRow, "value">>;
  private readonly selectCount: Statement<[string, string], number>;
  private readonly upsert: Statement<[string, Buffer, number, number]>;
  private readonly deleteRange: Statement<[string, string]>;

  constructor(db: Db) {
    this.selectRevision = db.prepare<[], number>("SELECT revision FROM kv_revision WHERE id = 1").pluck();
    this.updateRevision = db.prepare("UPDATE kv_revision SET revision = ? WHERE id = 1");
    this.selectOne = db.prepare("SELECT key, value, create_revision, mod_revision FROM kv WHERE key = ?");
    // LIMIT -1 is SQLite's "no limit".
    this.selectRange = db.prepare("SELECT key, value, create_revision, mod_revision FROM kv WHERE key >= ? AND key < ? ORDER BY key LIMIT ?");
    this.selectRangeKeys = db.prepare("SELECT key, create_revision, mod_revision FROM kv WHERE key >= ? AND key < ? ORDER BY key LIMIT ?");
    this.selectCount = db.prepare<[string, string], number>("SELECT count(*) FROM kv WHERE key >= ? AND key < ?").pluck();
    // An existing key keeps the revision that created it, as in etcd.
    this.upsert = db.prepare(
      "INSERT INTO kv (key, value, create_revision, mod_revision) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT (key) DO UPDATE SET value = excluded.value, mod_revision = excluded.mod_revision",
    );
    this.deleteRange = db.prepare("DELETE FROM kv WHERE key >= ? AND key < ?");
  }

  revision(): number {
    const revision = this.selectRevision.get();
    if (revision === undefined) throw new Error("the kv_revision table has no row: the database is not a kintsugi key-value store");
    return revision;
  }

  setRevision(revision: number): void {
    this.updateRevision.run(revision);
  }

  get(key: string): KvPair | null {
    const row = this.selectOne.get(key);
    return row === undefined ? null : pairOf(row);
  }

  /** At most `limit` (-1: all); `keysOnly` leaves the values unread. */
  range(range: KeyRange, limit: number, keysOnly: boolean): KvPair[] {
    if (keysOnly) return this.selectRangeKeys.all(range.start, range.end, limit).map((row) => pairOf({ ...row, value: EMPTY }));
    return this.selectRange.all(range.start, range.end, limit).map(pairOf);
  }

  count(range: KeyRange): number {
    return this.selectCount.get(range.start, range.end) ?? 0;
  }

  put(key: string, value: Buffer, revision: number): void {
    this.upsert.run(key, value, revision, revision);
  }

  delete(range: KeyRange): string[] {
    const keys = this.selectRangeKeys.all(range.start, range.end, -1).map((row) => row.key);
    if (keys.length > 0) this.deleteRange.run(range.start, range.end);
    return keys;
  }
}
