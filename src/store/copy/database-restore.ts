import { existsSync, renameSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { DatabaseInUseError, lockDatabase, type DatabaseLock } from "../kv/sqlite/database-lock.js";
import { BackupError } from "./backup-error.js";
import { checkDatabaseFile, type DatabaseCheck } from "./database-check.js";
import { fsyncPath, removeWithSideFiles, sameFile, temporaryBeside } from "./new-file.js";
import { onlineBackup } from "./store-backup.js";

/** A finished restore: the database now in place, the backup's check, and where the database it replaced was kept. */
export interface RestoreResult {
  readonly database: string;
  readonly backup: DatabaseCheck;
  /** The replaced database's new name (`<database>.before-restore-<time>`), or null when there was none. */
  readonly kept: string | null;
}

/** What SQLite keeps beside a database: moved with it, since SQLite would apply a stale journal to the restored file. */
const JOURNALS = ["-wal", "-shm", "-journal"] as const;

/**
 * Puts the backup `backup` in place as the database `database`, which no kintsugi may be using. In this order, each
 * step leaving the database as it was when it fails: checks the backup as `kintsugi db check` does; takes the
 * database's lock (refused while a kintsugi holds it, and none can start meanwhile); copies the backup beside the
 * database with SQLite's backup API (which also carries a WAL file beside the backup) and checks that the copy holds
 * the same (sha256); moves the database and its journals aside to `<database>.before-restore-<now>`; renames the copy
 * onto the database. Nothing is deleted.
 */
export async function restoreDatabase(backup: string, database: string, now: Date): Promise<RestoreResult> {
  const from = resolve(backup);
  const file = resolve(database);
  if (sameFile(from, file)) throw new BackupError(`${from} is the database itself; name a backup`);
  const check = await checkDatabaseFile(from);
  if (check.problems.length > 0)
    throw new BackupError(`backup ${from} fails its check, so the database ${file} was left as it is: ${check.problems.join("; ")}`);
  const lock = takeLock(file);
  try {
    const copy = await copyBeside(from, file, check);
    const kept = existsSync(file) ? keptName(file, now) : null;
    try {
      if (kept !== null) moveAside(file, kept);
      renameSync(copy, file);
    } catch (err) {
      if (kept !== null) putBack(kept, file);
      removeWithSideFiles(copy);
      throw new BackupError(`putting the backup in place as ${file} failed, and the database was put back: ${(err as Error).message}`);
    }
    fsyncPath(dirname(file));
    return { database: file, backup: check, kept };
  } finally {
    lock.release();
  }
}

function takeLock(file: string): DatabaseLock {
  try {
    return lockDatabase(file);
  } catch (err) {
    if (!(err instanceof DatabaseInUseError)) throw err;
    const pid = err.holderPid;
    throw new BackupError(
      `database ${file} is in use by a running kintsugi${pid === null ? "" : ` (pid ${pid})`}, which holds its lock file ${file}.lock; nothing was changed. ` +
        `Stop it first (systemctl stop kintsugi, or kill -TERM ${pid ?? "<its pid>"}: it finishes what is in flight and exits), then restore`,
    );
  }
}

/** The backup copied to a temporary file beside the database, flushed, and checked to hold what the backup holds. */
async function copyBeside(from: string, file: string, check: DatabaseCheck): Promise<string> {
  const copy = temporaryBeside(file, "restore");
  try {
    await onlineBackup(from, copy);
    const copied = await checkDatabaseFile(copy);
    if (copied.problems.length > 0 || copied.summary?.sha256 !== check.summary?.sha256) {
      throw new BackupError(`the copy of backup ${from} does not hold what the backup holds, so the database ${file} was left as it is`);
    }
    fsyncPath(copy);
    return copy;
  } catch (err) {
    removeWithSideFiles(copy);
    throw err;
  }
}

/** `20261122T050000Z`: the time in a file name, sortable, without characters some tools mind. */
function stamp(now: Date): string {
  return now
    .toISOString()
    .replace(/\.\d+Z$/, "Z")
    .replaceAll(/[-:]/g, "");
}

/** `<database>.before-restore-<now>`, numbered on when a restore in the same second already used it. */
function keptName(file: string, now: Date): string {
  const base = `${file}.before-restore-${stamp(now)}`;
  let kept = base;
  for (let n = 2; ["", ...JOURNALS].some((suffix) => existsSync(`${kept}${suffix}`)); n++) kept = `${base}-${n}`;
  return kept;
}

/** Moves the database aside, its journals first: the restored file must never find the old one's WAL beside it. */
function moveAside(file: string, kept: string): void {
  for (const journal of JOURNALS) if (existsSync(`${file}${journal}`)) renameSync(`${file}${journal}`, `${kept}${journal}`);
  renameSync(file, kept);
}

/** Undoes as much of {@link moveAside} as was done. */
function putBack(kept: string, file: string): void {
  for (const suffix of ["", ...JOURNALS])
    if (existsSync(`${kept}${suffix}`) && !existsSync(`${file}${suffix}`)) renameSync(`${kept}${suffix}`, `${file}${suffix}`);
}
