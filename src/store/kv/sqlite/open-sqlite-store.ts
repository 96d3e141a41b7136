import { resolve } from "node:path";
import type { PollRecordsConfig } from "../../../config/poll-records-schema.js";
import type { Constraints } from "../../../domain/shared/constraints.js";
import { StoreKeys } from "../../core/store-keys.js";
import type { KvStoreAccess } from "../../core/kv-store-access.js";
import { openStoreCore } from "../../core/open-store-core.js";
import { convertOldFile } from "./old-tables/convert-sqlite-file.js";
import { describeProgress } from "../../../support/progress.js";
import type { KvDriver } from "../kv-driver.js";
import { openSqliteKvDriver } from "./open-sqlite-kv.js";
import { SQLITE_KV_PREFIX } from "./sqlite-kv-schema.js";
import type { KintsugiStore } from "../../store-port.js";
import { SILENT_LOG, type Log } from "../../../support/log.js";
import { howToEmptySqlite } from "./old-tables/sqlite-copy-marker.js";

export interface SqliteStoreOptions {
  /** The database file, created on first open. */
  readonly path: string;
  /** The config file's constraints: they apply where no value was set through the API. */
  readonly initialConstraints?: Partial<Constraints>;
  /** How many finished-repair records are kept (default KEPT_FINISHED_REPAIRS; tests lower it). */
  readonly keepFinishedRepairs?: number;
  /** How long and how much of the poll records are kept (default DEFAULT_POLL_RECORDS). */
  readonly pollRecords?: PollRecordsConfig;
  readonly log?: Log;
  /** Where the conversion of an older kintsugi's file tells its start and progress (default `log`). */
  readonly conversionLog?: Log;
}

/** How the core names a SQLite file to operators. */
export function sqliteAccess(driver: KvDriver, file: string): KvStoreAccess {
  return {
    driver,
    keys: new StoreKeys(SQLITE_KV_PREFIX),
    description: `sqlite:${file}`,
    place: `SQLite database ${file}`,
    howToEmpty: howToEmptySqlite(file),
  };
}

/**
 * Opens the SQLite backend: the store core (the same as on etcd) over the SQLite driver. The driver takes the file's
 * lock (a second kintsugi on the same file is refused before it writes anything) and opens it by what it holds: a
 * new file gets the key-value table; a file of an older kintsugi (its tables) is converted to it in a new file that
 * replaces it (a crash during it leaves the old file as it was), with progress lines in the log. The lock makes this process the only writer, so
 * `guarded` needs no guard. A busy or failing file reaches callers as the store's errors, never as SQLite's.
 */
export async function openSqliteStore(options: SqliteStoreOptions): Promise<KintsugiStore> {
  const file = resolve(options.path);
  const log = options.log ?? SILENT_LOG;
  const conversionLog = options.conversionLog ?? log;
  const conversion = (old: string) => {
    conversionLog.info("converting the SQLite file of an older kintsugi to the key-value format (once; see docs/ha-and-backups.md)", { file: old });
    convertOldFile(old, {
      progress: (p) =>
        conversionLog.info(`converting ${old}: ${describeProgress("rows", p)}`, {
          rowsDone: p.done,
          rows: p.total,
          elapsedSeconds: Math.round(p.elapsedMs / 1000),
          ...(p.leftMs !== null && { secondsLeft: Math.round(p.leftMs / 1000) }),
        }),
    });
  };
  const driver = openSqliteKvDriver(file, { conversion });
  return openStoreCore(sqliteAccess(driver, file), { ...options, log });
}
