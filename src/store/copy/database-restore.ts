import { existsSync, renameSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { checkDatabaseFile, type DatabaseCheck } from "./database-check.js";
import { BackupError, fsyncPath, JOURNALS, lockOrRefuse, removeWithSideFiles, sameFile, temporaryBeside } from "./new-file.js";
import { onlineBackup } from "./store-backup.js";

/** A finished restore; `kept` is where the replaced database went (`<database>.before-restore-<time>`), if any. */
interface RestoreResult {
  readonly database: string;
  readonly backup: DatabaseCheck;
  readonly kept: string | null;
}

/**
 * Puts `backup` in place as `database`, each step leaving the database as it was when it fails: checks the backup;
 * takes the database's lock (refused while a kintsugi holds it); copies the backup beside it with SQLite's backup
 * API and checks the copy's sha256; moves the database and its journals aside; renames the copy onto it. Nothing is
 * deleted.
 */
export async function restoreDatabase(backup: string, database: string, now: Date): Promise<RestoreResult> {
  const from = resolve(backup);
  const file = resolve(database);
  if (sameFile(from, file)) throw new BackupError(`${from} is the database itself; name a backup`);
  const check = await checkDatabaseFile(from);
  if (check.problems.length > 0)
    throw new BackupError(`backup ${from} fails its check, so the database ${file} was left as it is: ${check.problems.join("; ")}`);
  const lock = lockOrRefuse(
    file,
    (pid) =>
      `database ${file} is in use by a running kintsugi${pid === null ? "" : ` (pid ${pid})`}, which holds its lock file ${file}.lock; nothing was changed. ` +
      `Stop it first (systemctl stop kintsugi, or kill -TERM ${pid ?? "<its pid>"}: it finishes what is in flight and exits), then restore`,
  );
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

/** `<database>.before-restore-20261122T050000Z` (the time sortable, without characters some tools mind), numbered on when that name is taken. */
function keptName(file: string, now: Date): string {
  const base = `${file}.before-restore-${now.toISOString().slice(0, 19).replaceAll(/[-:]/g, "")}Z`;
  let kept = base;
  for (let n = 2; ["", ...JOURNALS].some((suffix) => existsSync(`${kept}${suffix}`)); n++) kept = `${base}-${n}`;
  return kept;
}

/** Moves the database aside, its journals first: the restored file must never find the old one's WAL beside it. */
function moveAside(file: string, kept: string): void {
  for (const journal of JOURNALS) if (existsSync(`${file}${journal}`)) renameSync(`${file}${journal}`, `${kept}${journal}`);
  renameSync(file, kept);
}

function putBack(kept: string, file: string): void {
  for (const suffix of ["", ...JOURNALS])
    if (existsSync(`${kept}${suffix}`) && !existsSync(`${file}${suffix}`)) renameSync(`${kept}${suffix}`, `${file}${suffix}`);
}
