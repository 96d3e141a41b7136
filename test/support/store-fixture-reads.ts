import { NOW } from "./fixtures.js";

/** The fixture of today's SQLite store (made by scripts/make-store-fixture.ts), kept to prove upgrades keep it. */
export const STORE_FIXTURE_DIR = new URL("../fixtures/store-v1/", import.meta.url);
export const STORE_FIXTURE_DB = new URL("kintsugi.db", STORE_FIXTURE_DIR);
export const STORE_FIXTURE_READS = new URL("api-reads.json", STORE_FIXTURE_DIR);

/** The clock of the server that reads the fixture: an hour after what it records, so holds with an end still hold. */
export const FIXTURE_NOW = NOW + 3_600_000;

const ENTRY =
  "index address nodename serial machineType operation status step stepStatus deleted lastTransitionTime drainBackoffCount drainBackoffExpire createdAt source";
const HISTORY = "sequence time kind reason detail status step stepStatus deleted actor";
const EVIDENCE = "evidence { step bootIdBefore bootIdAfter signals { signal since } dwellStartedAt dwellStarts provenAt }";
const SINCE = new Date(NOW - 86_400_000).toISOString();

/**
 * Every read of the stored state through the API, by name: what an upgrade of the store must answer byte for byte
 * as the release that made the fixture did. Each names its fields (no introspection) so that a field added later does
 * not change what the fixture recorded.
 */
export const STORE_FIXTURE_QUERIES: Readonly<Record<string, string>> = {
  entries: `{ searchRepairEntries { ${ENTRY} ${EVIDENCE} history { ${HISTORY} } } }`,
  settings: `{ repairQueueEnabled autoRepairEnabled autoRepairVariables { having { labels { name value } racks roles states minDaysBeforeRetire } notHaving { labels { name value } racks roles states minDaysBeforeRetire } } clusterGenerationEnabled }`,
  constraints: `{ constraints { controlPlaneCount minimumWorkersRate maximumUnreachableNodesForReboot maximumRepairQueueEntries waitSecondsToRepairRebooting maximumUnhealthyMachinesPerRack minimumWorkers maximumWorkers waitSecondsToReplaceControlPlane } }`,
  outcomes: `{ autoRepairOutcomes(last: 10) { sequence time trigger machinesSeen enqueued { index address } skipped { serial address state reason kind held rack } skippedTotal skippedByKind { kind machines } shortCircuit { existingEntries candidates limit } error } }`,
  generations: `{ clusterGenerations { sequence outcome generation time lastTime repeats trigger changes error cluster { generation yaml } } }`,
  template: `{ clusterTemplate { template setAt } clusterVariables { having { racks } notHaving { racks } } }`,
  holds: `{ machineHolds { address reason setBy setAt until source } }`,
  finished: `{ finishedRepairs(since: "${SINCE}") { index address machineType operation source status createdAt finishedAt } }`,
  replay: `{ simulateAutoRepair(since: "${SINCE}") { pollsReplayed remediationsReplayed unconfiguredChecks unreadableRecords truncated enqueuedLive enqueuedSimulated } }`,
  stats: `{ repairStats(since: "${SINCE}") { entries succeeded failed deleted successRate withHistory } }`,
};
