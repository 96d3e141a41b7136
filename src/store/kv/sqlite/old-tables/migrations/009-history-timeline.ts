/**
 * A covering index for repair analytics: the history of a range of entry indexes, in order, with the few columns the
 * statistics read (time and the state after each change), so a read of 100,000 records touches the index alone and
 * never the table's reasons and details. The finished-repair records say which indexes ended in a time range.
 */
export const historyTimelineSchema = `
CREATE INDEX repair_history_timeline ON repair_history (entry_index, seq, time, status, step, step_status);
`;
