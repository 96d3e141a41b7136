/**
 * What each sabakan poll's intake read and did (`intake`, src/domain/replay/poll-record.ts) and what each health check's
 * remediation read and did (`health-check`, src/domain/replay/remediation-record.ts), deflated JSON, written in the
 * transaction of the poll or remediation: the what-if replay's input. Kept by age and by total bytes (`poll_records`
 * in the config, both kinds together), so `bytes` is stored beside the body.
 */
export const pollRecordsSchema = `
CREATE TABLE poll_records (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('intake', 'health-check')),
  time INTEGER NOT NULL,
  bytes INTEGER NOT NULL,
  body BLOB NOT NULL
);
CREATE INDEX poll_records_time ON poll_records (kind, time);
`;
