import { unfinishedCopy, type CopyMarker } from "../../../copy/copy-marker.js";
import type { Db } from "../database.js";

export function howToEmptySqlite(file: string): string {
  return `remove ${file}, ${file}-wal and ${file}-shm`;
}

/** Refuses a database of the old tables that holds the marker of an unfinished copy (see migration 005). */
export function refuseUnfinishedOldCopy(db: Db): void {
  const marker = db.prepare("SELECT copy_id AS copyId, source, started_at AS startedAt FROM copy_in_progress").get() as CopyMarker | undefined;
  if (marker !== undefined) throw unfinishedCopy(`database ${db.name}`, marker, howToEmptySqlite(db.name));
}
