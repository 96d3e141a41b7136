import { existsSync } from "node:fs";
import { resolve } from "node:path";
import Database from "better-sqlite3";
import { DatabaseOpenError } from "../../store-errors.js";
import { schemaVersion, type Db } from "./database.js";
import { openLockedDatabase } from "./database-lock.js";
import { NEWEST_SCHEMA_VERSION, type Migration } from "./old-tables/migrations/index.js";
import { SqliteKvDriver } from "./sqlite-kv-driver.js";
import { SQLITE_KV_PREFIX, SQLITE_KV_TABLES } from "./sqlite-kv-schema.js";
import { StoreKeys } from "../../core/store-keys.js";
import type { KvStoreAccess } from "../../core/kv-store-access.js";
import { openStoreCore, type StoreCoreOptions } from "../../core/open-store-core.js";
import { convertOldFile } from "./old-tables/convert-sqlite-file.js";
import { describeProgress } from "../../../support/progress.js";
import type { KvDriver } from "../kv-driver.js";
import type { KintsugiStore } from "../../store-port.js";
import { SILENT_LOG, type Log } from "../../../support/log.js";
import { howToEmptySqlite } from "./old-tables/sqlite-copy-marker.js";

/** The schema version of a file in the key-value format, which a new file is recorded at (no old table is ever made). */
export const KV_SCHEMA_VERSION = NEWEST_SCHEMA_VERSION;

/** What a new file gets instead of migrations 1-12 and the conversion: the kv tables, at the kv format's version. */
const KV_TABLES: Migration = { version: KV_SCHEMA_VERSION, name: "key-value store", sql: SQLITE_KV_TABLES };

interface OpenSqliteKvOptions {
  /** Converts a file of the old tables to the kv format; absent: such a file is refused, untouched. */
  readonly conversion?: (file: string) => void;
}

/**
 * Opens the SQLite file as a key-value driver: takes its lock first (a second kintsugi is refused before anything is
 * written); a new file gets the kv tables, a newer version is refused, the old tables are converted by
 * `options.conversion` or refused. Throws DatabaseOpenError naming the file.
 */
export function openSqliteKvDriver(path: string, options: OpenSqliteKvOptions = {}): SqliteKvDriver {
  const file = resolve(path);
  const { db, close } = openLockedDatabase(file, () => migrationsFor(file, options.conversion));
  try {
    requireKvTables(db, file);
    return new SqliteKvDriver(db, { description: file, close });
  } catch (err) {
    close();
    throw err;
  }
}

function migrationsFor(file: string, conversion: ((file: string) => void) | undefined): readonly Migration[] {
  const version = storedVersion(file);
  if (version === "new" || version >= KV_SCHEMA_VERSION) return [KV_TABLES];
  if (conversion === undefined) {
    throw new DatabaseOpenError(
      `database ${file} holds kintsugi's old tables (schema version ${version}); this kintsugi cannot convert them to its key-value table yet, and left the file as it was`,
    );
  }
  conversion(file);
  return [KV_TABLES];
}

/** The file's schema version (0: not kintsugi's tables), or "new"; an unreadable file fails later, with openDatabase's message. */
export function storedVersion(file: string): number | "new" {
  if (!existsSync(file)) return "new";
  let peek: Database.Database;
  try {
    peek = new Database(file, { fileMustExist: true });
  } catch {
    return KV_SCHEMA_VERSION;
  }
  try {
    const tables = peek.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all();
    if (tables.length === 0) return "new";
    return tables.includes("schema_version") ? schemaVersion(peek) : 0;
  } catch {
    return KV_SCHEMA_VERSION;
  } finally {
    peek.close();
  }
}

function requireKvTables(db: Db, file: string): void {
  const found = db.prepare<[], number>("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('kv', 'kv_revision')").pluck().get();
  if (found !== 2)
    throw new DatabaseOpenError(
      `database ${file} is at schema version ${KV_SCHEMA_VERSION} but has no key-value tables: it is damaged; restore it from a backup`,
    );
}

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
