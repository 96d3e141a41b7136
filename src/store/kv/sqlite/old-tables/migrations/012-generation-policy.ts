/**
 * Each generation record names the worker selection policy it ran under (`weighted` or `all_healthy`). NULL in rows
 * written before: those read as weighted, the only policy there was.
 */
export const generationPolicySchema = `
ALTER TABLE cluster_generations ADD COLUMN policy TEXT CHECK (policy IS NULL OR policy IN ('weighted', 'all_healthy'));
`;
