/** Entries, their append-only history, and key/value settings. */
export const initialSchema = `
CREATE TABLE repair_entries (
  idx INTEGER PRIMARY KEY AUTOINCREMENT,
  address TEXT NOT NULL,
  nodename TEXT NOT NULL DEFAULT '',
  serial TEXT,
  machine_type TEXT NOT NULL,
  operation TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('queued', 'processing', 'succeeded', 'failed')),
  step INTEGER NOT NULL CHECK (step >= 0),
  step_status TEXT NOT NULL CHECK (step_status IN ('waiting', 'draining', 'watching')),
  deleted INTEGER NOT NULL CHECK (deleted IN (0, 1)),
  last_transition_time INTEGER,
  drain_backoff_count INTEGER NOT NULL CHECK (drain_backoff_count >= 0),
  drain_backoff_expire INTEGER,
  created_at INTEGER NOT NULL,
  source TEXT NOT NULL
);
CREATE INDEX repair_entries_address ON repair_entries (address);

CREATE TABLE repair_history (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  entry_index INTEGER NOT NULL,
  time INTEGER NOT NULL,
  kind TEXT NOT NULL,
  reason TEXT NOT NULL,
  detail TEXT,
  status TEXT NOT NULL,
  step INTEGER NOT NULL,
  step_status TEXT NOT NULL,
  deleted INTEGER NOT NULL
);
CREATE INDEX repair_history_entry ON repair_history (entry_index, seq);

-- Append-only: a record of what happened to a machine is never rewritten.
CREATE TRIGGER repair_history_no_update BEFORE UPDATE ON repair_history
BEGIN SELECT RAISE(ABORT, 'repair_history is append-only'); END;
CREATE TRIGGER repair_history_no_delete BEFORE DELETE ON repair_history
BEGIN SELECT RAISE(ABORT, 'repair_history is append-only'); END;

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
`;
