import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { DatabaseOpenError } from "../../store-errors.js";
import { MIGRATIONS, type Migration } from "./old-tables/migrations/index.js";

export type Db = Database.Database;

/**
 * How long a statement waits for another process's write lock: better-sqlite3 is synchronous, so the whole process
 * waits with it; a busy database fails fast instead.
 */
const BUSY_TIMEOUT_MS = 20;

/** Opens the SQLite file with WAL and `synchronous=FULL` (a commit survives power loss), then applies `migrations`. */
export function openDatabase(path: string, migrations: readonly Migration[] = MIGRATIONS): Db {
  const file = resolve(path);
  let db: Db;
  try {
    mkdirSync(dirname(file), { recursive: true });
    db = new Database(file);
  } catch (err) {
    throw new DatabaseOpenError(`cannot open database ${file}: ${(err as Error).message}`);
  }
  try {
    // Before anything is written (even the journal mode): a database this kintsugi refuses is left as it was.
    refuseNewerSchema(db, migrations);
    // Only on a file without tables (a new one), where it takes effect: its freed pages can then be given back (the
    // SQLite store does, see sqlite-kv-driver.ts). On a file that has it, setting it again writes the file's header.
    if (db.prepare("SELECT COUNT(*) FROM sqlite_master").pluck().get() === 0) db.pragma("auto_vacuum = INCREMENTAL");
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
    db.pragma("foreign_keys = ON");
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    migrate(db, migrations);
    return db;
  } catch (err) {
    db.close();
    const message = err instanceof DatabaseOpenError ? err.message : `cannot open database ${file}: ${(err as Error).message}`;
    throw new DatabaseOpenError(message);
  }
}

/** Opens an existing SQLite file read-only (a running kintsugi may hold it); `failure` names what cannot be opened. */
export function openDatabaseReadOnly(file: string, failure: new (message: string) => Error = DatabaseOpenError): Db {
  try {
    return new Database(file, { readonly: true, fileMustExist: true });
  } catch (err) {
    throw new failure(`cannot open database ${file}: ${(err as Error).message}`);
  }
}

export function schemaVersion(db: Db): number {
  const row = db.prepare("SELECT MAX(version) AS v FROM schema_version").get() as { v: number | null };
  return row.v ?? 0;
}

function refuseNewerSchema(db: Db, migrations: readonly Migration[]): void {
  const tracked = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'").get() !== undefined;
  const current = tracked ? schemaVersion(db) : 0;
  const newest = migrations.at(-1)?.version ?? 0;
  if (current > newest) {
    // A newer kintsugi wrote this file; running older code on it could corrupt what it does not understand.
    throw new DatabaseOpenError(
      `database ${db.name} has schema version ${current}, newer than this kintsugi knows (${newest}): a newer kintsugi wrote it. ` +
        "Run that version or a newer one; to go back to this version, restore a backup made before the upgrade (kintsugi db restore)",
    );
  }
}

/** Brings `db` to the newest of `migrations`, one transaction each; refuses a newer schema. */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): void {
  refuseNewerSchema(db, migrations);
  db.exec(`CREATE TABLE IF NOT EXISTS schema_version (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)`);
  const current = schemaVersion(db);
  const record = db.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)");
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, new Date().toISOString());
    })();
  }
}
