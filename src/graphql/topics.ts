import type { AutoRepairOutcome } from "../domain/auto-repair-outcome.js";
import type { MachineStateChange } from "../gateway/sabakan-data.js";

/** The subscription topics and their payloads. */
export interface Topics extends Record<string, unknown> {
  machineStateChanged: MachineStateChange;
  autoRepairOutcomes: AutoRepairOutcome;
}
