/**
 * The SQLite driver's tables (Kine's model: etcd's keys and values in one table). `kv` holds every key of the store
 * with the revisions that created and last wrote it; `WITHOUT ROWID` keeps the rows in key order (BINARY collation
 * compares UTF-8 bytes, as etcd orders keys), so a history or record read is a range scan of the primary key.
 * `kv_revision` holds the store's one revision counter: every committed write advances it by one.
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

/** The prefix of every key the SQLite store keeps: the etcd store's layout (src/store/core/store-keys.ts) under a fixed prefix. */
export const SQLITE_KV_PREFIX = "/kintsugi/";
