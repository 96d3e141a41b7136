import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { SnapshotSourceError, type SnapshotSource } from "../copy/store-snapshot.js";
import { openLockedDatabase } from "./database-lock.js";
import { refuseUnfinishedCopy } from "./sqlite-copy-marker.js";
import { sqliteSnapshotItems } from "./sqlite-snapshot-export.js";

/**
 * A SQLite file as the source of a copy. It must exist (opening would create an empty one). Its lock is taken for
 * the whole copy, so a file a running kintsugi holds is refused and none can start on it and write meanwhile; the
 * file is opened as kintsugi opens it (migrations applied). A file holding an unfinished copy is refused.
 */
export function openSqliteSnapshotSource(path: string): SnapshotSource {
  const file = resolve(path);
  if (!existsSync(file)) throw new SnapshotSourceError(`there is no SQLite database at ${file}`);
  const { db, close } = openLockedDatabase(file);
  try {
    refuseUnfinishedCopy(db);
  } catch (err) {
    close();
    throw err;
  }
  const description = `sqlite:${file}`;
  return { description, items: () => sqliteSnapshotItems(db, description), close: async () => close() };
}
