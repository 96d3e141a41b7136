/**
 * The SQLite driver's tables (Kine's model): every key with its revisions, `WITHOUT ROWID` so a range read is a scan
 * of the primary key, and the store's one revision counter.
 */
export const SQLITE_KV_TABLES = `
CREATE TABLE kv (
  key TEXT NOT NULL PRIMARY KEY,
  value BLOB NOT NULL,
  create_revision INTEGER NOT NULL,
  mod_revision INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE kv_revision (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  revision INTEGER NOT NULL
);
INSERT INTO kv_revision (id, revision) VALUES (1, 0);
`;

/** The SQLite store keeps the etcd store's layout under a fixed prefix. */
export const SQLITE_KV_PREFIX = "/kintsugi/";
