import { randomBytes } from "node:crypto";
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, realpathSync, renameSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { DatabaseInUseError, lockDatabase, type DatabaseLock } from "../kv/sqlite/database-lock.js";
import { NamedError } from "../store-errors.js";

/**
 * A backup, restore or check that cannot go on, said so that the operator can act: a missing file, a file that would
 * be overwritten, a database in use, a backup that fails its check. Whatever was there is left as it was.
 */
export class BackupError extends NamedError {}

/** The files SQLite keeps beside a database: one left beside a file SQLite would apply to the file put in its place. */
export const JOURNALS = ["-wal", "-shm", "-journal"] as const;

/** Through symbolic links, so two spellings of one file are seen as one. */
export function sameFile(a: string, b: string): boolean {
  const real = (file: string) => (existsSync(file) ? realpathSync(file) : resolve(file));
  return real(a) === real(b);
}

/** Flushes a file or a directory (a rename is durable once its directory is) to the disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Takes the lock of the database `file`; while a running kintsugi (pid `holder`) holds it, a BackupError saying `inUse`. */
export function lockOrRefuse(file: string, inUse: (holder: number | null) => string): DatabaseLock {
  try {
    return lockDatabase(file);
  } catch (err) {
    if (!(err instanceof DatabaseInUseError)) throw err;
    throw new BackupError(inUse(err.holderPid));
  }
}

/** Removes `file`, its journals and kintsugi's lock file beside it. */
export function removeWithSideFiles(file: string): void {
  for (const suffix of ["", ...JOURNALS, ".lock"]) rmSync(`${file}${suffix}`, { force: true });
}

/** A temporary name in the directory of `file` (a rename onto `file` is atomic there), made when missing. */
export function temporaryBeside(file: string, purpose: string): string {
  mkdirSync(dirname(file), { recursive: true });
  return join(dirname(file), `.${basename(file)}.${purpose}-${randomBytes(6).toString("hex")}`);
}

/**
 * Makes the SQLite file `out` as a whole or not at all: `write` makes it at a temporary name beside `out`, flushed
 * and renamed onto it once it succeeds. An existing `out` is refused unless `force` (a running kintsugi's, always).
 */
export async function writeNewFile<T>(out: string, force: boolean, write: (temporary: string) => Promise<T>): Promise<T> {
  const file = resolve(out);
  if (existsSync(file)) {
    if (statSync(file).isDirectory()) throw new BackupError(`${file} is a directory; name the file to write`);
    if (!force) throw new BackupError(`${file} already exists; name a new file, or add --force to replace it`);
    // A running kintsugi's database is never replaced under it; its lock says whether one holds it.
    if (existsSync(`${file}.lock`))
      lockOrRefuse(
        file,
        (pid) => `${file} is the database of a running kintsugi${pid === null ? "" : ` (pid ${pid})`}; it is not replaced: name another file`,
      ).release();
  }
  const temporary = temporaryBeside(file, "new");
  try {
    const result = await write(temporary);
    rmSync(`${temporary}.lock`, { force: true });
    fsyncPath(temporary);
    for (const journal of JOURNALS) rmSync(`${file}${journal}`, { force: true });
    renameSync(temporary, file);
    fsyncPath(dirname(file));
    return result;
  } catch (err) {
    removeWithSideFiles(temporary);
    throw err;
  }
}
