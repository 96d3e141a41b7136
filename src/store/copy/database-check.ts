import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { summarizeSnapshot, type SnapshotSummary } from "./snapshot-digest.js";
import type { SnapshotItem } from "./store-snapshot.js";
import { refuseUnfinishedCopy, UnfinishedCopyError } from "./copy-marker.js";
import { migrate, openDatabaseReadOnly, schemaVersion, type Db } from "../kv/sqlite/database.js";
import { LEGACY_SCHEMA_VERSION, NEWEST_SCHEMA_VERSION } from "../kv/sqlite/old-tables/migrations/index.js";
import { kvSnapshotItems } from "./snapshot-export.js";
import { SqliteKvDriver } from "../kv/sqlite/sqlite-kv-driver.js";
import { sqliteAccess } from "../kv/sqlite/open-sqlite-store.js";
import { refuseUnfinishedOldCopy } from "../kv/sqlite/old-tables/sqlite-copy-marker.js";
import { sqliteSnapshotItems } from "../kv/sqlite/old-tables/sqlite-snapshot-export.js";
import { escapeControlCharacters } from "../../domain/shared/untrusted-text.js";
import { BackupError } from "./new-file.js";

/** What `kintsugi db check` found in a SQLite file (null: could not be read). */
export interface DatabaseCheck {
  /** Absolute. */
  readonly file: string;
  readonly schemaVersion: number | null;
  /** Its whole snapshot, read and checked as `kintsugi db copy` reads one: null when anything is wrong. */
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
    return { file, schemaVersion: null, summary: null, problems: [`it cannot be read: ${err.message}`] };
  } finally {
    db.close();
  }
}

async function inspect(db: Db, file: string): Promise<DatabaseCheck> {
  const failed = (schemaVersion: number | null, ...problems: string[]): DatabaseCheck => ({ file, schemaVersion, summary: null, problems });
  let integrity: string[];
  try {
    integrity = (db.pragma("integrity_check") as Array<{ integrity_check: string }>).map((row) => row.integrity_check);
  } catch (err) {
    return failed(null, `SQLite's integrity check failed: ${(err as Error).message}`);
  }
  if (integrity.length !== 1 || integrity[0] !== "ok") {
    const quoted = integrity.slice(0, QUOTED_LINES).join("; ");
    return failed(null, `SQLite's integrity check found ${integrity.length} problem(s): ${quoted}${integrity.length > QUOTED_LINES ? "; ..." : ""}`);
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
  if (!tables.has("schema_version")) return failed(null, ...problems, "it holds no kintsugi schema (no schema_version table): it is not a kintsugi database");
  const version = schemaVersion(db);
  if (version > NEWEST_SCHEMA_VERSION) {
    problems.push(
      `schema version ${version} is newer than this kintsugi's (${NEWEST_SCHEMA_VERSION}): a newer kintsugi wrote it, and this one refuses to serve it; ` +
        "check it with that version or a newer one",
    );
  }
  const from = `sqlite:${file}`;
  const kv = version === NEWEST_SCHEMA_VERSION ? sqliteAccess(new SqliteKvDriver(db, { description: file }), file) : null;
  try {
    if (kv !== null) await refuseUnfinishedCopy(kv);
    else if (tables.has("copy_in_progress")) refuseUnfinishedOldCopy(db);
  } catch (err) {
    if (!(err instanceof UnfinishedCopyError)) throw err;
    problems.push(err.message);
  }
  if (problems.length > 0) return failed(version, ...problems);
  try {
    const items = kv === null ? oldTablesSnapshot(db, from, version) : kvSnapshotItems(kv);
    return { file, schemaVersion: version, summary: await summarizeSnapshot(from, items), problems };
  } catch (err) {
    return failed(version, (err as Error).message);
  }
}

/** The snapshot of the old tables, read in one read transaction; an older schema is migrated first, in a copy in memory (the file is not changed). */
async function* oldTablesSnapshot(db: Db, from: string, version: number): AsyncGenerator<SnapshotItem> {
  if (version === LEGACY_SCHEMA_VERSION) return yield* sqliteSnapshotItems(db, from);
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
    yield* sqliteSnapshotItems(migrated, from);
  } finally {
    migrated.close();
  }
}
