import { unfinishedCopy } from "../../../copy/unfinished-copy.js";
import type { CopyMarker } from "../../../copy/store-snapshot.js";
import type { Db } from "../database.js";

export function howToEmptySqlite(file: string): string {
  return `remove ${file}, ${file}-wal and ${file}-shm`;
}

/** The marker of an unfinished copy into `db`, or null (see migration 005). */
export function readCopyMarker(db: Db): CopyMarker | null {
  const row = db.prepare("SELECT copy_id, source, started_at FROM copy_in_progress").get() as
    { copy_id: string; source: string; started_at: string } | undefined;
  return row === undefined ? null : { copyId: row.copy_id, source: row.source, startedAt: row.started_at };
}

/** Refuses a database of the old tables that holds the marker of an unfinished copy. */
export function refuseUnfinishedCopy(db: Db): void {
  const marker = readCopyMarker(db);
  if (marker !== null) throw unfinishedCopy(`database ${db.name}`, marker, howToEmptySqlite(db.name));
}

export function writeCopyMarker(db: Db, marker: CopyMarker): void {
  db.prepare("INSERT INTO copy_in_progress (id, copy_id, source, started_at) VALUES (1, ?, ?, ?)").run(marker.copyId, marker.source, marker.startedAt);
}
