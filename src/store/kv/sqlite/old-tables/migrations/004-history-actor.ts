/**
 * Who made each history record: a token's name for API changes ("anonymous" without a token), "kintsugi" for the
 * runner, "sabakan" for sabakan-triggered repair, "health-check:NAME" for a health check (the entry's `source`).
 *
 * Records written before this migration get what their kind and reason tell: the runner's transitions, notes and
 * dequeues "kintsugi"; creations by sabakan or a health check their trigger (the reason names it); everything else
 * (API creations, deletion requests, back-off resets) "unknown", since the token was not recorded then. The
 * append-only trigger is dropped for the backfill and recreated in the same transaction, so no other write can
 * slip in between and no stored field changes except the new column.
 */
export const historyActorSchema = `
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
