/** The outcome of every sabakan poll (the newest 1,000 are kept). */
export const autoRepairOutcomesSchema = `
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
