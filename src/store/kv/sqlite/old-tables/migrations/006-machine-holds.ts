/** The machine holds set through the API, one per machine address (canonical form); times in ms since the epoch. */
export const machineHoldsSchema = `
CREATE TABLE machine_holds (
  address TEXT PRIMARY KEY,
  reason TEXT NOT NULL,
  set_by TEXT NOT NULL,
  set_at INTEGER NOT NULL,
  until INTEGER
);
`;
