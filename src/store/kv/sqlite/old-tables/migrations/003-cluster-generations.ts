/**
 * Cluster generation: every generated configuration (its generation number, nodes and reasons), every failed
 * attempt (the error and the generation that stayed in force) and the first successful round after a failure
 * (neither cluster nor error). `cluster` is the configuration as gzip'd JSON. The template, the query variables and the on/off switch live in `settings`.
 */
export const clusterGenerationsSchema = `
CREATE TABLE cluster_generations (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  time INTEGER NOT NULL,
  last_time INTEGER NOT NULL,
  repeats INTEGER NOT NULL CHECK (repeats >= 1),
  trigger TEXT NOT NULL,
  generation INTEGER NOT NULL CHECK (generation >= 0),
  cluster BLOB,
  changes TEXT NOT NULL,
  error TEXT,
  CHECK (cluster IS NULL OR error IS NULL)
);
CREATE UNIQUE INDEX cluster_generations_generation ON cluster_generations (generation) WHERE cluster IS NOT NULL;
`;
