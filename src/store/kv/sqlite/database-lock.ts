import { closeSync, mkdirSync, openSync, readSync } from "node:fs";
import { dirname, resolve } from "node:path";
import Database from "better-sqlite3";
import { DatabaseOpenError } from "../../store-errors.js";
import { openDatabase, type Db } from "./database.js";
import { MIGRATIONS, type Migration } from "./old-tables/migrations/index.js";

/** The lock of one kintsugi process on its database, held until `release()` or until the process dies. */
export interface DatabaseLock {
  release(): void;
}

/** The database's lock is held by another process (or by this one, elsewhere): a kintsugi is using the database. */
export class DatabaseInUseError extends DatabaseOpenError {
  // The CLI and the operator know one name for every database that cannot be opened.
  override readonly name = "DatabaseOpenError";
  constructor(
    message: string,
    /** The holder's pid, when its lock file says. */
    readonly holderPid: number | null,
  ) {
    super(message);
  }
}

/** Lock files this process holds: asked again, it refuses without touching the file (see `holderPid`). */
const held = new Set<string>();

/**
 * Takes the lock that makes a kintsugi process the only one on the database, or throws naming the holder's pid. The
 * lock is a SQLite database beside it kept write-locked (`locking_mode=EXCLUSIVE`): fcntl locks, which the kernel
 * drops when the process dies however it dies, so a kill -9 leaves no stale lock. A refused process writes nothing.
 */
export function lockDatabase(databasePath: string): DatabaseLock {
  const database = resolve(databasePath);
  const path = `${database}.lock`;
  if (held.has(path)) throw inUse(database, path, process.pid);
  let db: Database.Database;
  try {
    mkdirSync(dirname(path), { recursive: true });
    db = new Database(path);
  } catch (err) {
    throw new DatabaseOpenError(`cannot open database ${database}: cannot create its lock file ${path}: ${(err as Error).message}`);
  }
  try {
    db.pragma("busy_timeout = 0");
    db.pragma("locking_mode = EXCLUSIVE");
    // No journal file beside the lock: the only content is the holder's pid, which nothing depends on.
    db.pragma("journal_mode = MEMORY");
    db.exec("BEGIN EXCLUSIVE");
    // The header's user_version (bytes 60-63) names the holder, for the message of the next one refused.
    db.pragma(`user_version = ${process.pid}`);
    db.exec("COMMIT");
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith("SQLITE_BUSY")) throw inUse(database, path, holderPid(path));
    throw new DatabaseOpenError(`cannot lock database ${database} (lock file ${path}): ${(err as Error).message}`);
  }
  held.add(path);
  return {
    release() {
      if (!held.delete(path)) return;
      db.close();
    },
  };
}

function inUse(database: string, lockFile: string, pid: number | null): DatabaseInUseError {
  const holder = pid === null ? "another kintsugi process" : `another kintsugi process (pid ${pid})`;
  return new DatabaseInUseError(
    `database ${database} is in use by ${holder}, which holds its lock file ${lockFile}; stop that process or give this one another database`,
    pid,
  );
}

/**
 * The pid in a held lock file's header, or null when it cannot be read. Called only when another process holds
 * the lock: closing a descriptor of a file drops every fcntl lock this process has on it, its own included.
 */
function holderPid(lockFile: string): number | null {
  try {
    const fd = openSync(lockFile, "r");
    try {
      const header = Buffer.alloc(64);
      if (readSync(fd, header, 0, 64, 0) < 64) return null;
      const pid = header.readUInt32BE(60);
      return pid > 0 ? pid : null;
    } finally {
      closeSync(fd);
    }
  } catch {
    return null;
  }
}

/** Takes the database's lock, then opens it with `migrations()`; `close` closes the database, then releases the lock. */
export function openLockedDatabase(path: string, migrations: () => readonly Migration[] = () => MIGRATIONS): { readonly db: Db; close(): void } {
  const lock = lockDatabase(path);
  let db: Db;
  try {
    db = openDatabase(path, migrations());
  } catch (err) {
    lock.release();
    throw err;
  }
  return {
    db,
    close() {
      db.close();
      lock.release();
    },
  };
}
