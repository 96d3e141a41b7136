import { resolve } from "node:path";
import { StoreKeys } from "../../core/store-keys.js";
import type { KvStoreAccess } from "../../core/kv-store-access.js";
import { openStoreCore, type StoreCoreOptions } from "../../core/open-store-core.js";
import { convertOldFile } from "./old-tables/convert-sqlite-file.js";
import { describeProgress } from "../../../support/progress.js";
import type { KvDriver } from "../kv-driver.js";
import { openSqliteKvDriver } from "./open-sqlite-kv.js";
import { SQLITE_KV_PREFIX } from "./sqlite-kv-schema.js";
import type { KintsugiStore } from "../../store-port.js";
import { SILENT_LOG, type Log } from "../../../support/log.js";
import { howToEmptySqlite } from "./old-tables/sqlite-copy-marker.js";

export interface SqliteStoreOptions extends Omit<StoreCoreOptions, "log"> {
  /** The database file, created on first open. */
  readonly path: string;
  readonly log?: Log;
  /** Where the conversion of an older kintsugi's file tells its start and progress (default `log`). */
  readonly conversionLog?: Log;
}

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
 * The store core over the SQLite driver, which takes the file's lock (a second kintsugi on the file is refused before
 * it writes anything); a file of an older kintsugi's tables is converted first, with progress lines in the log.
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
