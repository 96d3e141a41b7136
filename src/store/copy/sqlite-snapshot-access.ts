import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SnapshotSourceError, type SnapshotSource, type SnapshotTarget } from "./store-snapshot.js";
import { openKvSnapshotSource } from "./snapshot-export.js";
import { openKvSnapshotTarget } from "./snapshot-target.js";
import { KV_SCHEMA_VERSION, openSqliteKvDriver, sqliteAccess, storedVersion } from "../kv/sqlite/open-sqlite-store.js";
import { openLockedDatabase } from "../kv/sqlite/database-lock.js";
import { refuseUnfinishedOldCopy } from "../kv/sqlite/old-tables/sqlite-copy-marker.js";
import { oldTableRows, sqliteSnapshotItems } from "../kv/sqlite/old-tables/sqlite-snapshot-export.js";

/**
 * A SQLite file as the source of a copy, its lock held for the whole copy (a running kintsugi's file is refused). A
 * file of the old tables is read as they are, not converted: a copy leaves its source as it was.
 */
export async function openSqliteSnapshotSource(path: string): Promise<SnapshotSource> {
  const file = resolve(path);
  if (!existsSync(file)) throw new SnapshotSourceError(`there is no SQLite database at ${file}`);
  const version = storedVersion(file);
  if (version === "new" || version >= KV_SCHEMA_VERSION) return openKvSnapshotSource(sqliteAccess(openSqliteKvDriver(file), file), true);
  const { db, close } = openLockedDatabase(file);
  try {
    refuseUnfinishedOldCopy(db);
  } catch (err) {
    close();
    throw err;
  }
  const description = `sqlite:${file}`;
  return { description, items: () => sqliteSnapshotItems(db, description), size: async () => oldTableRows(db), close: async () => close() };
}

/** A SQLite file as the target of a copy, its lock taken at once (a running kintsugi's file is refused). */
export function openSqliteSnapshotTarget(path: string): SnapshotTarget {
  const file = resolve(path);
  return openKvSnapshotTarget(sqliteAccess(openSqliteKvDriver(file), file));
}
