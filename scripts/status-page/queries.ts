// The documents the page sends: one snapshot over HTTP, then subscriptions over graphql-ws.

const ENTRY = "index address nodename machineType operation status step stepStatus stepCount deleted createdAt lastTransitionTime waitingFor { kind message until }";
const HOLD = "address reason setBy until source";
const OUTCOME =
  "sequence time trigger machinesSeen enqueued { index address } skipped { serial address state reason kind held } skippedTotal shortCircuit { existingEntries candidates limit } error";

export const SNAPSHOT = `query StatusSnapshot {
  searchMachines { spec { serial rack indexInRack ipv4 } status { state } }
  searchRepairEntries { ${ENTRY} }
  machineHolds { ${HOLD} }
  autoRepairOutcomes(last: 5) { ${OUTCOME} }
}`;

export const SUBSCRIPTIONS = {
  entries: `subscription StatusEntries { repairEntryEvents { kind entry { ${ENTRY} } } }`,
  machines: "subscription StatusMachines { machineStateChanged { serial state } }",
  outcomes: `subscription StatusOutcomes { autoRepairOutcomes { ${OUTCOME} } }`,
  holds: `subscription StatusHolds { machineHoldEvents { kind hold { ${HOLD} } } }`,
  waits: "subscription StatusWaits { repairWaits { index waitingFor { kind message until } } }",
} as const;
