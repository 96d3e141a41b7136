/**
 * The proof of repair an entry gathered for its current step (kintsugi's `success_requires`), as JSON; NULL for an
 * entry of an operation that requires none (every entry stored before this migration).
 */
export const repairEvidenceSchema = `
ALTER TABLE repair_entries ADD COLUMN evidence TEXT;
`;
