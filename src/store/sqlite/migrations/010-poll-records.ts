/**
 * What each sabakan poll's intake read and did (src/domain/poll-record.ts), deflated JSON, written in the
 * transaction that records the poll's outcome: the what-if replay's input. Kept by age and by total bytes
 * (`poll_records` in the config), so `bytes` is stored beside the body.
 */
export const pollRecordsSchema = `
CREATE TABLE poll_records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  body BLOB NOT NULL
);
CREATE INDEX poll_records_time ON poll_records (time);
`;
