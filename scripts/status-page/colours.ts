// The rack grid's colours: a cell's fill is its sabakan state, its ring its repair (or hold).

export const STATE_COLOURS: Readonly<Record<string, string>> = {
  HEALTHY: "#3a9d5d",
  UNHEALTHY: "#d9822b",
  UNREACHABLE: "#c23030",
  UPDATING: "#4f7fd9",
  UNINITIALIZED: "#8a8f98",
  RETIRING: "#9b6bc9",
  RETIRED: "#3d3f44",
};
export const UNKNOWN_STATE_COLOUR = "#000000";

/** The ring a cell gets for the repair entry at its address (or a hold). */
export const REPAIR_COLOURS: Readonly<Record<string, string>> = {
  QUEUED: "#f2d024",
  PROCESSING: "#22d3ee",
  FAILED: "#ff3b3b",
  SUCCEEDED: "#b6f2c8",
  HELD: "#ffffff",
};

/** What the legend says for each ring. */
export const REPAIR_LABELS: Readonly<Record<string, string>> = {
  QUEUED: "repair queued",
  PROCESSING: "being repaired",
  FAILED: "repair failed",
  SUCCEEDED: "repaired",
  HELD: "held",
};
