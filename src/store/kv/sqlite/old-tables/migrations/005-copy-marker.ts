/**
 * The marker of a copy in progress (`kintsugi db copy` into this file): written first, removed last, once the copy
 * was verified. A file holding it is not opened (an older kintsugi refuses it too: this migration is newer than it).
 */
export const copyMarkerSchema = `
CREATE TABLE copy_in_progress (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  copy_id TEXT NOT NULL,
  source TEXT NOT NULL,
  started_at TEXT NOT NULL
);
`;
