import { existsSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { CopyFailedError, copyStore } from "./copy-store.js";
import { type EtcdSnapshotOptions, openEtcdSnapshotSource, openSqliteSnapshotTarget } from "./snapshot-access.js";
import { openDatabaseReadOnly } from "../kv/sqlite/database.js";
import { checkDatabaseFile, type DatabaseCheck } from "./database-check.js";
import { BackupError, sameFile, writeNewFile } from "./new-file.js";

interface BackupResult {
  readonly from: string;
  readonly to: string;
  readonly check: DatabaseCheck;
}

/** Pages per step of SQLite's online backup: all of them, so the copy is read in one read transaction (see below). */
const ALL_PAGES = 0x7fffffff;

/**
 * Backs up the SQLite database into the new file `out` while a kintsugi may write it, with SQLite's online backup in a
 * single step: one read transaction, so the copy is the database as of one commit (a copy in several steps restarts
 * at every write of another process, and might never finish). The copy is checked, then renamed onto `out`.
 */
export async function backupSqliteDatabase(source: string, out: string, force: boolean): Promise<BackupResult> {
  const file = resolve(source);
  if (!existsSync(file)) throw new BackupError(`there is no SQLite database at ${file}`);
  if (sameFile(file, out)) throw new BackupError(`${resolve(out)} is the database itself; name another file`);
  return writeNewFile(out, force, async (temporary) => {
    await onlineBackup(file, temporary);
    const check = await checkDatabaseFile(temporary);
    if (check.problems.length > 0) {
      const problems = check.problems.map((p) => p.replaceAll(temporary, file)).join("; ");
      throw new BackupError(`the copy of ${file} fails its check, as the database itself does, so ${resolve(out)} was not written: ${problems}`);
    }
    return { from: `sqlite:${file}`, to: resolve(out), check: { ...check, file: resolve(out) } };
  });
}

/** SQLite's online backup of `source` into the new file `target`, left as one file (no WAL beside it). */
export async function onlineBackup(source: string, target: string): Promise<void> {
  const db = openDatabaseReadOnly(source, BackupError);
  try {
    await db.backup(target, { progress: () => ALL_PAGES });
  } catch (err) {
    if (err instanceof Database.SqliteError) throw new BackupError(`backing up ${source} failed: ${err.message}`);
    throw err;
  } finally {
    db.close();
  }
  selfContained(target);
}

function selfContained(file: string): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.pragma("journal_mode = DELETE");
  } finally {
    db.close();
  }
}

/**
 * Backs up the etcd store into the new SQLite file `out` while its replicas run: a copy read at one revision and
 * verified, then checked as `kintsugi db check` checks and renamed onto `out` (`kintsugi db copy` takes it back).
 */
export async function backupEtcdStore(options: EtcdSnapshotOptions, out: string, force: boolean): Promise<BackupResult> {
  return writeNewFile(out, force, async (temporary) => {
    const source = await openEtcdSnapshotSource(options, true);
    let sha256: string;
    try {
      const target = openSqliteSnapshotTarget(temporary);
      try {
        sha256 = (await copyStore(source, target)).summary.sha256;
      } finally {
        await target.close();
      }
    } catch (err) {
      // The copy's own advice (empty the target, copy again) does not apply: the temporary file goes.
      if (err instanceof CopyFailedError)
        throw new BackupError(`${err.message.split("\n")[0]?.replaceAll(temporary, resolve(out))}; ${resolve(out)} was not written`);
      throw err;
    } finally {
      await source.close();
    }
    selfContained(temporary);
    const check = await checkDatabaseFile(temporary);
    if (check.problems.length > 0 || check.summary?.sha256 !== sha256) {
      throw new BackupError(
        `the backup of ${source.description} does not check out (${check.problems.join("; ") || "its sha256 differs from the copy's"}); ${resolve(out)} was not written`,
      );
    }
    return { from: source.description, to: resolve(out), check: { ...check, file: resolve(out) } };
  });
}
