import { DEFAULT_CONSTRAINTS, type Constraints } from "../domain/shared/constraints.js";
import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig, type RepairOperationConfig } from "../domain/queue/repair-config.js";
import type { SuccessProof } from "../domain/proof/repair-evidence.js";
import type { EscalationConfig } from "../domain/escalation/repair-escalation.js";
import { HEALTH_COMMAND, REPAIR_COMMAND } from "./sim-commands.js";
import { SIM_BMC_TYPE, SIM_ROLE_LABEL } from "./sim-world.js";

/** The operations: sabakan's states (`unhealthy`, `unreachable`) and the health check's. */
export const SIM_OPERATIONS = ["unhealthy", "unreachable", "node-notready"] as const;

/** How the simulated kintsugi is configured; drawn from the seed where it varies. */
export interface SimSettings {
  readonly maxConcurrentRepairs: number;
  /** `success_requires` and `success_dwell_seconds` of every operation; absent: CKE's proof (the health check alone). */
  readonly proof?: SuccessProof;
  /** `repair.escalation`; absent: off (as CKE). */
  readonly escalation?: EscalationConfig;
}

function operation(name: string, proof: SuccessProof | undefined): RepairOperationConfig {
  return {
    operation: name,
    healthCheckCommand: [HEALTH_COMMAND],
    commandTimeoutSeconds: 30,
    successCommand: null,
    successCommandTimeout: 30,
    repairSteps: [
      { repairCommand: [REPAIR_COMMAND, "reboot"], commandTimeoutSeconds: 300, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 600 },
      { repairCommand: [REPAIR_COMMAND, "power-cycle"], commandTimeoutSeconds: 300, commandRetries: 0, commandInterval: 0, needDrain: true, watchSeconds: 900 },
    ],
    ...(proof && { successProof: proof }),
  };
}

/**
 * CKE's shape of repair: reboot first, then drain and power-cycle. No retries: a retry's interval would wait on the
 * wall clock (the runner sleeps between attempts), which the simulator does not move.
 */
export function simRepairConfig(settings: SimSettings): RepairConfig {
  return {
    ...EMPTY_REPAIR_CONFIG,
    maxConcurrentRepairs: settings.maxConcurrentRepairs,
    ...(settings.escalation && { escalation: settings.escalation }),
    evictionTimeoutSeconds: 600,
    repairProcedures: [{ machineTypes: [SIM_BMC_TYPE], repairOperations: SIM_OPERATIONS.map((name) => operation(name, settings.proof)) }],
  };
}

/** A Node NotReady for 10 minutes is remediated with `node-notready` (machine type from sabakan). */
export const SIM_HEALTH_CHECK: HealthCheckConfig = {
  name: "node-ready",
  selector: { matchExpressions: [{ key: SIM_ROLE_LABEL, operator: "Exists" }] },
  unhealthyConditions: [{ type: "Ready", status: "False", timeoutSeconds: 600 }],
  maxUnhealthy: { kind: "percent", value: 40 },
  unhealthyRange: null,
  operation: "node-notready",
  machineType: { from: "sabakan" },
  paused: false,
};

/** The constraints the simulation starts with (operators change them as it runs). */
export function simConstraints(machines: number): Constraints {
  return {
    ...DEFAULT_CONSTRAINTS,
    maximumRepairQueueEntries: Math.max(5, Math.ceil(machines / 10)),
    maximumUnhealthyMachinesPerRack: 3,
    waitSecondsToRepairRebooting: 1800,
  };
}

/** The longest an entry may take from its first pass to its end when nothing stands in its way (ms). */
export function longestChainMs(repair: RepairConfig, passIntervalMs: number): number {
  let longest = 0;
  for (const p of repair.repairProcedures) {
    for (const op of p.repairOperations) {
      let total = op.commandTimeoutSeconds + op.successCommandTimeout + (op.successProof?.dwellSeconds ?? 0);
      for (const s of op.repairSteps)
        total += s.commandTimeoutSeconds * (s.commandRetries + 1) + s.watchSeconds + (s.needDrain ? repair.evictionTimeoutSeconds : 0);
      longest = Math.max(longest, total * 1000);
    }
  }
  return longest + 4 * passIntervalMs;
}
