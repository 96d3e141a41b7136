/**
 * A poll outcome lists at most 1,000 skipped machines (src/domain/intake/skipped-bound.ts), so it keeps how many it skipped:
 * `skipped_total`, and `skipped_by_kind` as JSON ([{ "kind", "machines" }]). Both are NULL in rows written before,
 * whose `skipped` list is whole.
 */
export const skippedCountsSchema = `
ALTER TABLE auto_repair_outcomes ADD COLUMN skipped_total INTEGER CHECK (skipped_total IS NULL OR skipped_total >= 0);
ALTER TABLE auto_repair_outcomes ADD COLUMN skipped_by_kind TEXT CHECK ((skipped_by_kind IS NULL) = (skipped_total IS NULL));
`;
