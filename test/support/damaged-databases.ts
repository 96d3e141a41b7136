import { closeSync, openSync, readFileSync, writeSync } from "node:fs";
import Database from "better-sqlite3";
import { openDatabase } from "../../src/store/kv/sqlite/database.js";
import { MIGRATIONS, NEWEST_SCHEMA_VERSION } from "../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import { writeRealisticHistory } from "./realistic-store.js";

/** A kintsugi database at `file` holding {@link writeRealisticHistory}'s data, closed (no WAL beside it). */
export async function realisticDatabase(file: string): Promise<void> {
  const store = await openSqliteStore({ path: file });
  await writeRealisticHistory(store);
  await store.close();
}

/** Runs `change` on a plain connection to `file` (no lock, no migration), then closes it, leaving one file. */
export function tamper(file: string, change: (db: Database.Database) => void): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    change(db);
    db.pragma("journal_mode = DELETE");
  } finally {
    db.close();
  }
}

/** Overwrites the first bytes of the page that holds the root of `table` with garbage: SQLite's b-tree is broken. */
export function corruptTablePage(file: string, table = "kv"): void {
  let offset = 0;
  tamper(file, (db) => {
    const root = db.prepare("SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as number | undefined;
    if (root === undefined) throw new Error(`${file} has no table ${table}`);
    offset = (root - 1) * (db.pragma("page_size", { simple: true }) as number);
  });
  const fd = openSync(file, "r+");
  try {
    writeSync(fd, Buffer.alloc(8, 0xa5), 0, 8, offset);
  } finally {
    closeSync(fd);
  }
}

/**
 * Changes a key of the `kv` table in its page behind SQLite's back (the bytes of `from` into `to`, of the same length,
 * sorting after the key that follows it), so the rows are no longer in the order of the primary key that `kv` (WITHOUT
 * ROWID) is stored as: SQLite's b-trees are sound, their content is not.
 */
export function misorderKvKey(file: string, from = "/kintsugi/holds/10.0.0.11", to = "/kintsugi/holds/90.0.0.11"): void {
  if (from.length !== to.length) throw new Error(`${to} is not as long as ${from}`);
  const bytes = readFileSync(file);
  // Every copy in the file: the live cell, and any remains of it in free space.
  const found: number[] = [];
  for (let at = bytes.indexOf(from); at >= 0; at = bytes.indexOf(from, at + 1)) found.push(at);
  if (found.length === 0) throw new Error(`${from} is not in ${file}`);
  const fd = openSync(file, "r+");
  try {
    for (const at of found) writeSync(fd, Buffer.from(to), 0, to.length, at);
  } finally {
    closeSync(fd);
  }
}

/** Marks `file` as written by a kintsugi that knows schema version `version`, newer than this one's. */
export function fromNewerKintsugi(file: string, version = NEWEST_SCHEMA_VERSION + 1): void {
  tamper(file, (db) =>
    db.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (?, 'from the future', '2027-01-01T00:00:00.000Z')").run(version),
  );
}

/** A database as a kintsugi of schema version `version` (older than this one) left it, with one repair entry row. */
export function olderDatabase(file: string, version: number): void {
  const db = openDatabase(
    file,
    MIGRATIONS.filter((m) => m.version <= version),
  );
  try {
    db.prepare(
      `INSERT INTO repair_entries (address, machine_type, operation, status, step, step_status, deleted, drain_backoff_count, created_at, source)
      VALUES ('10.0.0.9', 'qemu', 'unreachable', 'queued', 0, 'waiting', 0, 0, 1, 'api')`,
    ).run();
    db.prepare(
      `INSERT INTO repair_history (entry_index, time, kind, reason, status, step, step_status, deleted)
      VALUES (1, 1, 'created', 'added by an operator', 'queued', 0, 'waiting', 0)`,
    ).run();
  } finally {
    db.close();
  }
}
