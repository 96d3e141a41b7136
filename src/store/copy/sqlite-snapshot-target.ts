import { resolve } from "node:path";
import type { SnapshotTarget } from "./store-snapshot.js";
import { openKvSnapshotTarget } from "./snapshot-target.js";
import { openSqliteKvDriver } from "../kv/sqlite/open-sqlite-kv.js";
import { sqliteAccess } from "../kv/sqlite/open-sqlite-store.js";

/** A SQLite file as the target of a copy, its lock taken at once (a running kintsugi's file is refused). */
export function openSqliteSnapshotTarget(path: string): SnapshotTarget {
  const file = resolve(path);
  return openKvSnapshotTarget(sqliteAccess(openSqliteKvDriver(file), file));
}
