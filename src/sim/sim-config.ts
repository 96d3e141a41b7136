import { DEFAULT_CONSTRAINTS, type Constraints } from "../domain/shared/constraints.js";
import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig, type RepairOperationConfig } from "../domain/queue/repair-config.js";
import type { SuccessProof } from "../domain/proof/repair-evidence.js";
import type { EscalationConfig } from "../domain/escalation/repair-escalation.js";
import { DIAGNOSTICS_COMMAND, HEALTH_COMMAND, REPAIR_COMMAND, SUCCESS_COMMAND } from "./sim-commands.js";
import { CLASSIC_MODEL, SIM_ESCALATION_OPERATION, type SimModel } from "./sim-model.js";
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

/**
 * A repair configuration an operator changes while kintsugi runs (the leader restarts with it): `base` is the one
 * the run starts with; `short-watch` halves every watch; `no-node-notready` drops the health check's operation (its
 * entries fail at once, the check enqueues no more); `wider` allows one more repair at a time.
 */
export type ConfigVariant = "base" | "short-watch" | "no-node-notready" | "wider";
export const CONFIG_VARIANTS: readonly ConfigVariant[] = ["base", "short-watch", "no-node-notready", "wider"];

function operation(name: string, settings: SimSettings, model: SimModel, variant: ConfigVariant): RepairOperationConfig {
  const watch = (seconds: number) => (variant === "short-watch" ? seconds / 2 : seconds);
  const step = (fix: string, needDrain: boolean, watchSeconds: number) => ({
    repairCommand: [REPAIR_COMMAND, fix],
    commandTimeoutSeconds: 300,
    commandRetries: model.commandRetries,
    commandInterval: 0,
    needDrain,
    watchSeconds: watch(watchSeconds),
  });
  return {
    operation: name,
    healthCheckCommand: [HEALTH_COMMAND],
    commandTimeoutSeconds: 30,
    successCommand: model.successCommand ? [SUCCESS_COMMAND] : null,
    successCommandTimeout: 30,
    ...(model.diagnostics && { diagnosticsCommand: [DIAGNOSTICS_COMMAND], diagnosticsTimeoutSeconds: 60 }),
    // The escalation operation goes straight to a drain and a power cycle.
    repairSteps: name === SIM_ESCALATION_OPERATION ? [step("power-cycle", true, 900)] : [step("reboot", false, 600), step("power-cycle", true, 900)],
    ...(settings.proof && { successProof: settings.proof }),
  };
}

/**
 * CKE's shape of repair: reboot first, then drain and power-cycle. Retries have no interval: an interval waits on
 * the wall clock (the runner sleeps between attempts), which the simulator does not move. With the whole model, the
 * drawn extensions (success and diagnostics commands, retries, pacing, escalation) and a variant an operator may
 * switch to while the run goes.
 */
export function simRepairConfig(settings: SimSettings, model: SimModel = CLASSIC_MODEL, variant: ConfigVariant = "base"): RepairConfig {
  const names: string[] = [...SIM_OPERATIONS];
  if (settings.escalation?.operation) names.push(settings.escalation.operation);
  return {
    ...EMPTY_REPAIR_CONFIG,
    maxConcurrentRepairs: settings.maxConcurrentRepairs + (variant === "wider" ? 1 : 0),
    ...(settings.escalation && { escalation: settings.escalation }),
    ...(model.pacing && { pacing: { domains: model.pacing } }),
    evictionTimeoutSeconds: model.evictionTimeoutSeconds,
    repairProcedures: [
      {
        machineTypes: [SIM_BMC_TYPE],
        repairOperations: names.filter((n) => variant !== "no-node-notready" || n !== "node-notready").map((n) => operation(n, settings, model, variant)),
      },
    ],
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

/** The health check of a run: the classic one, with the model's limit (a maximum or a range) and paused state. */
export function simHealthCheck(model: SimModel): HealthCheckConfig {
  if (!model.full) return SIM_HEALTH_CHECK;
  const limit = "range" in model.healthLimit ? { unhealthyRange: model.healthLimit.range } : { maxUnhealthy: model.healthLimit.maxUnhealthy };
  return { ...SIM_HEALTH_CHECK, ...limit, paused: model.healthPaused };
}

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
      let total = op.commandTimeoutSeconds + op.successCommandTimeout + (op.successProof?.dwellSeconds ?? 0) + (op.diagnosticsTimeoutSeconds ?? 0);
      for (const s of op.repairSteps)
        total += s.commandTimeoutSeconds * (s.commandRetries + 1) + s.watchSeconds + (s.needDrain ? repair.evictionTimeoutSeconds : 0);
      longest = Math.max(longest, total * 1000);
    }
  }
  return longest + 4 * passIntervalMs;
}
