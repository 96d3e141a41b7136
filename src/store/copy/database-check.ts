import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { summarizeSnapshot } from "./copy-store.js";
import type { SnapshotSummary } from "./snapshot-digest.js";
import { SNAPSHOT_KINDS, type SnapshotCounts } from "./snapshot-kinds.js";
import { unfinishedCopy } from "./unfinished-copy.js";
import { migrate, openDatabaseReadOnly, schemaVersion, type Db } from "../kv/sqlite/database.js";
import { LEGACY_SCHEMA_VERSION, NEWEST_SCHEMA_VERSION } from "../kv/sqlite/old-tables/migrations/index.js";
import { StoreKeys } from "../core/store-keys.js";
import { kvSnapshotItems } from "./snapshot-export.js";
import { SqliteKvDriver } from "../kv/sqlite/sqlite-kv-driver.js";
import { SQLITE_KV_PREFIX } from "../kv/sqlite/sqlite-kv-schema.js";
import { parseMarker } from "./unfinished-copy.js";
import { howToEmptySqlite, readCopyMarker } from "../kv/sqlite/old-tables/sqlite-copy-marker.js";
import { sqliteSnapshotItems } from "../kv/sqlite/old-tables/sqlite-snapshot-export.js";
import { escapeControlCharacters } from "../../domain/shared/untrusted-text.js";
import { BackupError } from "./backup-error.js";

/** What `kintsugi db check` found in a SQLite file (null: could not be read). */
export interface DatabaseCheck {
  /** Absolute. */
  readonly file: string;
  readonly schemaVersion: number | null;
  readonly counts: SnapshotCounts | null;
  /** Its whole snapshot, read and checked as `kintsugi db copy` reads one. */
  readonly summary: SnapshotSummary | null;
  /** Everything wrong with it (control characters escaped); empty when the file is fine. */
  readonly problems: readonly string[];
}

/** The most lines of SQLite's integrity check a problem quotes. */
const QUOTED_LINES = 5;

/**
 * Checks the SQLite file read-only (a running kintsugi may hold it): SQLite's integrity and foreign key checks, the
 * schema version (newer is refused), the marker of an unfinished copy, and every item read as a copy reads it.
 *
 * @throws BackupError when there is no such file or it cannot be opened at all.
 */
export async function checkDatabaseFile(path: string): Promise<DatabaseCheck> {
  const file = resolve(path);
  if (!existsSync(file)) throw new BackupError(`there is no SQLite database at ${file}`);
  if (statSync(file).isDirectory()) throw new BackupError(`${file} is a directory, not a SQLite database`);
  const db = openDatabaseReadOnly(file, BackupError);
  try {
    const check = await inspect(db, file);
    // Problems quote what the file holds (table and index names, a copy marker, stored values): printed to a
    // terminal, their control characters must show, not act.
    return { ...check, problems: check.problems.map(escapeControlCharacters) };
  } catch (err) {
    if (!(err instanceof Database.SqliteError)) throw err;
    return { file, schemaVersion: null, counts: null, summary: null, problems: [`it cannot be read: ${err.message}`] };
  } finally {
    db.close();
  }
}

async function inspect(db: Db, file: string): Promise<DatabaseCheck> {
  const unreadable = (...problems: string[]): DatabaseCheck => ({ file, schemaVersion: null, counts: null, summary: null, problems });
  let integrity: string[];
  try {
    integrity = (db.pragma("integrity_check") as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
  } catch (err) {
    return unreadable(`SQLite's integrity check failed: ${(err as Error).message}`);
  }
  if (integrity.length !== 1 || integrity[0] !== "ok") {
    const quoted = integrity.slice(0, QUOTED_LINES).join("; ");
    return unreadable(`SQLite's integrity check found ${integrity.length} problem(s): ${quoted}${integrity.length > QUOTED_LINES ? "; ..." : ""}`);
  }
  const problems: string[] = [];
  const orphans = db.pragma("foreign_key_check") as Array<{ table: string; rowid: number | null; parent: string }>;
  const first = orphans[0];
  if (first !== undefined) {
    problems.push(
      `SQLite's foreign key check found ${orphans.length} row(s) referring to rows that do not exist (first: ${first.table} row ${first.rowid ?? "?"} -> ${first.parent})`,
    );
  }
  const tables = new Set(db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[]);
  if (!tables.has("schema_version")) return unreadable(...problems, "it holds no kintsugi schema (no schema_version table): it is not a kintsugi database");
  const version = schemaVersion(db);
  if (version > NEWEST_SCHEMA_VERSION) {
    problems.push(
      `schema version ${version} is newer than this kintsugi's (${NEWEST_SCHEMA_VERSION}): a newer kintsugi wrote it, and this one refuses to serve it; ` +
        "check it with that version or a newer one",
    );
  }
  if (version === NEWEST_SCHEMA_VERSION) return inspectKv(db, file, problems);
  const marker = tables.has("copy_in_progress") ? readCopyMarker(db) : null;
  if (marker !== null) problems.push(unfinishedCopy(`database ${file}`, marker, howToEmptySqlite(file)).message);
  return summed(file, version, countRows(db, tables), problems, () => snapshotOf(db, file, version));
}

/** A file in the key-value format: its keys counted by kind, its copy marker, and its items read as a copy reads them. */
async function inspectKv(db: Db, file: string, problems: string[]): Promise<DatabaseCheck> {
  const keys = new StoreKeys(SQLITE_KV_PREFIX);
  const driver = new SqliteKvDriver(db, { description: file });
  const from = `sqlite:${file}`;
  const counts = {} as Record<keyof SnapshotCounts, number>;
  for (const [name, spec] of Object.entries(SNAPSHOT_KINDS))
    counts[name as keyof SnapshotCounts] = await driver.count(`counting ${spec.range(keys).start}`, spec.range(keys));
  const marker = (await driver.get(`reading ${keys.copyMarker}`, keys.copyMarker)).kv;
  if (marker !== null) problems.push(unfinishedCopy(`database ${file}`, parseMarker(marker.value.toString("utf8")), howToEmptySqlite(file)).message);
  return summed(file, NEWEST_SCHEMA_VERSION, counts, problems, () => summarizeSnapshot(from, kvSnapshotItems(driver, keys, from)));
}

/** The check with the snapshot's summary when nothing is wrong yet; a summary that fails is the one problem. */
async function summed(
  file: string,
  schemaVersion: number,
  counts: SnapshotCounts,
  problems: string[],
  sum: () => Promise<SnapshotSummary>,
): Promise<DatabaseCheck> {
  if (problems.length > 0) return { file, schemaVersion, counts, summary: null, problems };
  try {
    return { file, schemaVersion, counts, summary: await sum(), problems };
  } catch (err) {
    return { file, schemaVersion, counts, summary: null, problems: [(err as Error).message] };
  }
}

function countRows(db: Db, tables: ReadonlySet<string>): SnapshotCounts {
  const count = (table: string) => (tables.has(table) ? (db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number) : 0);
  return Object.fromEntries(Object.entries(SNAPSHOT_KINDS).map(([key, spec]) => [key, count(spec.table)])) as unknown as SnapshotCounts;
}

/** The snapshot, read in one read transaction; an older schema is migrated first, in a copy in memory (the file is not changed). */
async function snapshotOf(db: Db, file: string, version: number): Promise<SnapshotSummary> {
  const from = `sqlite:${file}`;
  if (version === LEGACY_SCHEMA_VERSION) return summarizeSnapshot(from, sqliteSnapshotItems(db, from));
  const image = db.serialize();
  // The file format's read and write versions (bytes 18 and 19) say WAL; a database in memory cannot be in WAL mode.
  image[18] = 1;
  image[19] = 1;
  const migrated = new Database(image);
  try {
    try {
      migrate(migrated);
    } catch (err) {
      throw new Error(
        `migrating schema version ${version} to ${LEGACY_SCHEMA_VERSION} (in memory; the file is not changed) failed: ${(err as Error).message}`,
        { cause: err },
      );
    }
    return await summarizeSnapshot(from, sqliteSnapshotItems(migrated, from));
  } finally {
    migrated.close();
  }
}
