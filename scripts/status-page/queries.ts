// The documents the page sends: a query per panel over HTTP, then subscriptions over graphql-ws.

const ENTRY =
  "index address nodename machineType operation status step stepStatus stepCount deleted createdAt lastTransitionTime failure waitingFor { kind message until }";
const HOLD = "address reason setBy until source";
/** The skipped machines a poll's panel lists: a sample, fair to every kind and rack; the counts by kind are whole. */
export const SKIP_SAMPLE = 20;
const OUTCOME = `sequence time trigger machinesSeen enqueued { index address } skipped(first: ${SKIP_SAMPLE}) { serial address state reason kind held } skippedTotal skippedByKind { kind machines } shortCircuit { existingEntries candidates limit } error`;

/**
 * The most machines whose every cell the rack grid draws (each read from sabakan, named in its tooltip, ringed by its
 * own repair); a larger data center is drawn from its counts by rack and state, an answer that grows with the racks.
 */
export const DETAIL_LIMIT = 1_000;

/** The most of the last day's finished-repair records the page reads (kintsugi allows 5,000). */
export const FINISHED_LIMIT = 2_000;

const DEPENDENCY = "name up downSince failures error";

/**
 * What the page reads at load and at every reconnection, one query per panel: a failed field fails only its own
 * query (a root field is non-null, so one failure would null every other field of a shared query), and each panel
 * shows its own error. Only `counts` and `machines` ask sabakan (the second only for a data center of at most
 * DETAIL_LIMIT machines); the others are kintsugi's own data.
 */
export const READS = {
  counts: "query StatusRackCounts { machineStateCounts { machines racks { rack machines states { state machines } repairing held } } }",
  machines: "query StatusMachines { searchMachines { spec { serial rack indexInRack ipv4 } status { state } } }",
  entries: `query StatusQueue { searchRepairEntries { ${ENTRY} } }`,
  holds: `query StatusHolds { machineHolds { ${HOLD} } }`,
  outcomes: `query StatusPolls { autoRepairOutcomes(last: 5) { ${OUTCOME} } }`,
  finished:
    "query StatusRepairs($since: DateTime!, $limit: Int!) { finishedRepairs(since: $since, limit: $limit) { index address operation status finishedAt reason } }",
  dependencies: `query StatusDependencies { dependencies { ${DEPENDENCY} } }`,
  limits: "query StatusLimits { constraints { maximumUnhealthyMachinesPerRack } }",
} as const;

export const SUBSCRIPTIONS = {
  entries: `subscription StatusEntries { repairEntryEvents { kind entry { ${ENTRY} } record { time } } }`,
  machines: "subscription StatusMachines { machineStateChanged { serial state } }",
  outcomes: `subscription StatusOutcomes { autoRepairOutcomes { ${OUTCOME} } }`,
  holds: `subscription StatusHolds { machineHoldEvents { kind hold { ${HOLD} } } }`,
  waits: "subscription StatusWaits { repairWaits { index waitingFor { kind message until } } }",
  dependencies: `subscription StatusDependencyEvents { dependencyEvents { ${DEPENDENCY} } }`,
} as const;
