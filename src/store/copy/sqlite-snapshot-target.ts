import { resolve } from "node:path";
import type { SnapshotTarget } from "./store-snapshot.js";
import { openKvSnapshotTarget } from "./snapshot-target.js";
import { openSqliteKvDriver } from "../kv/sqlite/open-sqlite-kv.js";
import { sqliteAccess } from "../kv/sqlite/open-sqlite-store.js";

/**
 * A SQLite file as the target of a copy: the store core's copy target over the SQLite driver. The driver takes the
 * file's lock at once (a running kintsugi's file is refused, and none can start on it during the copy) and refuses a
 * file of an older kintsugi's tables untouched; a file of the key-value table that holds any key is refused as not
 * empty before anything is written.
 */
export function openSqliteSnapshotTarget(path: string): SnapshotTarget {
  const file = resolve(path);
  return openKvSnapshotTarget(sqliteAccess(openSqliteKvDriver(file), file));
}
