import type { AutoRepairOutcome } from "../domain/intake/auto-repair-outcome.js";
import type { MachineStateChange } from "../gateway/sabakan-data.js";
import type { HoldChange, RepairChange } from "../store/store-port.js";
import type { HealthCheckStatus } from "../domain/health/health-check-remediation.js";
import type { ClusterGeneration } from "../domain/cluster/generation-record.js";
import type { PublishedWait } from "../domain/queue/published-waits.js";
import type { DependencyStatus } from "../domain/service/dependency-status.js";

/** The subscription topics and their payloads. */
export interface Topics extends Record<string, unknown> {
  repairEntryEvents: RepairChange;
  machineStateChanged: MachineStateChange;
  autoRepairOutcomes: AutoRepairOutcome;
  healthCheckEvents: HealthCheckStatus;
  clusterGenerated: ClusterGeneration;
  machineHoldEvents: HoldChange;
  repairWaits: readonly PublishedWait[];
  dependencyEvents: DependencyStatus;
}

/** Every topic's name, for what reports on all of them (metrics). */
export const TOPIC_NAMES: ReadonlyArray<keyof Topics & string> = [
  "repairEntryEvents",
  "machineStateChanged",
  "autoRepairOutcomes",
  "healthCheckEvents",
  "clusterGenerated",
  "machineHoldEvents",
  "repairWaits",
  "dependencyEvents",
];
