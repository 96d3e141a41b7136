// Entries, their append-only history, and key/value settings.
const initialSchema = `
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
// The outcome of every sabakan poll.
const autoRepairOutcomesSchema = `
CREATE TABLE auto_repair_outcomes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,
  trigger TEXT NOT NULL,
  machines_seen INTEGER NOT NULL,
  enqueued TEXT NOT NULL,
  skipped TEXT NOT NULL,
  short_circuit TEXT,
  error TEXT
);
`;
// Generated configurations, failed rounds and recoveries; `cluster` is gzip'd JSON.
const clusterGenerationsSchema = `
CREATE TABLE cluster_generations (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,
  last_time INTEGER NOT NULL,
  repeats INTEGER NOT NULL CHECK (repeats >= 1),
  trigger TEXT NOT NULL,
  generation INTEGER NOT NULL CHECK (generation >= 0),
  cluster BLOB,
  changes TEXT NOT NULL,
  error TEXT,
  CHECK (cluster IS NULL OR error IS NULL)
);
CREATE UNIQUE INDEX cluster_generations_generation ON cluster_generations (generation) WHERE cluster IS NOT NULL;
`;
// Who made each history record; older records get what their kind and reason tell ("unknown" when the token was
// not recorded), the append-only trigger dropped and recreated in the same transaction.
const historyActorSchema = `
ALTER TABLE repair_history ADD COLUMN actor TEXT NOT NULL DEFAULT 'unknown';

DROP TRIGGER repair_history_no_update;
UPDATE repair_history SET actor = CASE
  WHEN kind IN ('transition', 'note', 'dequeued') THEN 'kintsugi'
  WHEN kind = 'created' AND reason LIKE 'enqueued by sabakan-triggered repair%' THEN 'sabakan'
  WHEN kind = 'created' AND reason LIKE 'enqueued by health check %: node %' AND instr(reason, ': node ') > 26
    THEN 'health-check:' || substr(reason, 26, instr(reason, ': node ') - 26)
  ELSE 'unknown'
END;
CREATE TRIGGER repair_history_no_update BEFORE UPDATE ON repair_history
BEGIN SELECT RAISE(ABORT, 'repair_history is append-only'); END;
`;
// The marker of a copy in progress: a file holding it is not opened (an older kintsugi refuses it too).
const copyMarkerSchema = `
CREATE TABLE copy_in_progress (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  copy_id TEXT NOT NULL,
  source TEXT NOT NULL,
  started_at TEXT NOT NULL
);
`;
// The machine holds, one per canonical address.
const machineHoldsSchema = `
CREATE TABLE machine_holds (
  address TEXT PRIMARY KEY,
  reason TEXT NOT NULL,
  set_by TEXT NOT NULL,
  set_at INTEGER NOT NULL,
  until INTEGER
);
`;
// A record of every repair that ended, keyed by the history sequence of the change that ended it.
const finishedRepairsSchema = `
CREATE TABLE finished_repairs (
  seq INTEGER PRIMARY KEY,
  entry_index INTEGER NOT NULL,
  address TEXT NOT NULL,
  machine_type TEXT NOT NULL,
  operation TEXT NOT NULL,
  source TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  finished_at INTEGER NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('succeeded', 'failed', 'deleted')),
  proof TEXT CHECK (proof IS NULL OR proof IN ('proven', 'unproven'))
);
CREATE INDEX finished_repairs_entry ON finished_repairs (entry_index);
`;
// The proof of repair of an entry's current step, as JSON.
const repairEvidenceSchema = `
ALTER TABLE repair_entries ADD COLUMN evidence TEXT;
`;
// A covering index for the statistics' timelines.
const historyTimelineSchema = `
CREATE INDEX repair_history_timeline ON repair_history (entry_index, seq, time, status, step, step_status);
`;
// The replay records, deflated JSON, with their bytes for the byte bound.
const pollRecordsSchema = `
CREATE TABLE poll_records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('intake', 'health-check')),
  time INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  body BLOB NOT NULL
);
CREATE INDEX poll_records_time ON poll_records (kind, time);
`;
// How many machines a poll skipped (its list is bounded); NULL in rows written before.
const skippedCountsSchema = `
ALTER TABLE auto_repair_outcomes ADD COLUMN skipped_total INTEGER CHECK (skipped_total IS NULL OR skipped_total >= 0);
ALTER TABLE auto_repair_outcomes ADD COLUMN skipped_by_kind TEXT CHECK ((skipped_by_kind IS NULL) = (skipped_total IS NULL));
`;
// The worker selection a generation ran under; NULL in rows written before (weighted).
const generationPolicySchema = `
ALTER TABLE cluster_generations ADD COLUMN policy TEXT CHECK (policy IS NULL OR policy IN ('weighted', 'all_healthy'));
`;

/** A numbered schema change, never edited once applied. The old tables are only read, to convert or copy an older kintsugi's file. */
export type Migration = { readonly version: number; readonly name: string; readonly sql: string };

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "initial", sql: initialSchema },
  { version: 2, name: "auto-repair outcomes", sql: autoRepairOutcomesSchema },
  { version: 3, name: "cluster generations", sql: clusterGenerationsSchema },
  { version: 4, name: "history actor", sql: historyActorSchema },
  { version: 5, name: "copy marker", sql: copyMarkerSchema },
  { version: 6, name: "machine holds", sql: machineHoldsSchema },
  { version: 7, name: "finished repairs", sql: finishedRepairsSchema },
  { version: 8, name: "repair evidence", sql: repairEvidenceSchema },
  { version: 9, name: "history timeline", sql: historyTimelineSchema },
  { version: 10, name: "poll records", sql: pollRecordsSchema },
  { version: 11, name: "skipped counts", sql: skippedCountsSchema },
  { version: 12, name: "generation policy", sql: generationPolicySchema },
];

/** The last version of the old tables (migrations 1-12): a file at it or below is converted to the key-value table. */
export const LEGACY_SCHEMA_VERSION: number = MIGRATIONS.at(-1)?.version ?? 0;

/**
 * The schema version this kintsugi writes: the key-value table (src/store/kv/sqlite/open-sqlite-store.ts, migration 13 converts
 * the old tables to it). A database with a higher one was written by a newer kintsugi.
 */
export const NEWEST_SCHEMA_VERSION = 13;
