// The documents the page sends: one snapshot over HTTP, then subscriptions over graphql-ws.

const ENTRY = "index address nodename machineType operation status step stepStatus stepCount deleted createdAt lastTransitionTime waitingFor { kind message until }";
const HOLD = "address reason setBy until source";
const OUTCOME =
  "sequence time trigger machinesSeen enqueued { index address } skipped { serial address state reason kind held } skippedTotal shortCircuit { existingEntries candidates limit } error";

/** The most of the last day's finished-repair records the page reads (kintsugi allows 5,000). */
export const FINISHED_LIMIT = 2_000;

export const SNAPSHOT = `query StatusSnapshot($since: DateTime!, $limit: Int!) {
  searchMachines { spec { serial rack indexInRack ipv4 } status { state } }
  searchRepairEntries { ${ENTRY} }
  machineHolds { ${HOLD} }
  autoRepairOutcomes(last: 5) { ${OUTCOME} }
  finishedRepairs(since: $since, limit: $limit) { index address operation status finishedAt }
}`;

export const SUBSCRIPTIONS = {
  entries: `subscription StatusEntries { repairEntryEvents { kind entry { ${ENTRY} } record { time } } }`,
  machines: "subscription StatusMachines { machineStateChanged { serial state } }",
  outcomes: `subscription StatusOutcomes { autoRepairOutcomes { ${OUTCOME} } }`,
  holds: `subscription StatusHolds { machineHoldEvents { kind hold { ${HOLD} } } }`,
  waits: "subscription StatusWaits { repairWaits { index waitingFor { kind message until } } }",
} as const;
