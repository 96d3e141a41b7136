import { existsSync, renameSync, statSync } from "node:fs";
import { fsyncPath, removeWithSideFiles } from "../../../copy/new-file.js";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { progressCounter, type ProgressReport } from "../../../../support/progress.js";
import { UnfinishedCopyError } from "../../../copy/copy-marker.js";
import { DatabaseOpenError } from "../../../store-errors.js";
import { openDatabase, type Db } from "../database.js";
import { MIGRATIONS, NEWEST_SCHEMA_VERSION } from "./migrations/index.js";
import { convertTablesToKv } from "./convert-sqlite-tables.js";
import { oldTableRows } from "./sqlite-snapshot-export.js";

interface OldFileConversionOptions {
  /** Told how far the conversion is (rows of the old tables), about once a second and at the end. */
  readonly progress?: (p: ProgressReport) => void;
  /** Told how many rows were converted so far (a test stops the conversion there). */
  readonly afterItem?: (items: number) => void;
}

export function convertingFile(file: string): string {
  return `${file}.converting`;
}

/**
 * Converts a file of the old tables to the key-value format in a new file beside it, renamed onto it once complete
 * and on disk: a crash at any point leaves the old file as it was. The peak disk is the old file and the new one; the
 * new file starts with incremental auto_vacuum (settable only on a file without tables) and is written without a
 * journal or fsyncs (nothing reads it before the rename), then synced once. The caller holds the file's lock.
 *
 * @throws UnfinishedCopyError for a file holding an unfinished copy; DatabaseOpenError naming the file otherwise.
 */
export function convertOldFile(file: string, options: OldFileConversionOptions = {}): void {
  const temp = convertingFile(file);
  removeWithSideFiles(temp);
  // The old migrations first, in place (small changes of their own), as the conversion reads migration 12's tables.
  const source = openDatabase(file, MIGRATIONS);
  let target: Db | null = null;
  try {
    const into = (target = new Database(temp));
    into.pragma("auto_vacuum = INCREMENTAL");
    into.pragma("journal_mode = OFF");
    into.pragma("synchronous = OFF");
    const counter = progressCounter(oldTableRows(source), options.progress ?? (() => undefined));
    into.transaction(() => {
      into.exec("CREATE TABLE schema_version (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)");
      const record = into.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)");
      const applied = source.prepare("SELECT version, name, applied_at FROM schema_version ORDER BY version").raw().all() as Array<[number, string, string]>;
      for (const row of applied) record.run(...row);
      record.run(NEWEST_SCHEMA_VERSION, "one key-value table", new Date().toISOString());
      convertTablesToKv(source, into, (items) => {
        counter.update(items);
        options.afterItem?.(items);
      });
    })();
    into.close();
    source.close();
    // A WAL left beside the old file (another process has it open: an operator's sqlite3 shell) would be applied to
    // the new file once it has the old one's name.
    const wal = `${file}-wal`;
    if (existsSync(wal) && statSync(wal).size > 0)
      throw new DatabaseOpenError(`cannot convert database ${file}: another process has it open (its WAL ${wal} is not empty); stop it and start again`);
    fsyncPath(temp);
    renameSync(temp, file);
    fsyncPath(dirname(file));
    counter.finish();
  } catch (err) {
    if (target?.open) target.close();
    if (source.open) source.close();
    removeWithSideFiles(temp);
    if (err instanceof UnfinishedCopyError || err instanceof DatabaseOpenError) throw err;
    throw new DatabaseOpenError(`cannot open database ${file}: ${(err as Error).message}`, { cause: err });
  }
}
