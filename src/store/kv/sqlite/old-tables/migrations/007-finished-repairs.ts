/**
 * A small record of every repair that ended (finished, or dequeued before it finished), written in the transaction of
 * the change that ended it and keyed by that change's history sequence; the newest 10,000 are kept (see
 * KEPT_FINISHED_REPAIRS). Pacing and escalation read them at every pass, which the history (append-only, never
 * pruned, indexed by entry) cannot answer cheaply.
 */
export const finishedRepairsSchema = `
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
