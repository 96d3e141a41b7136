import type { HealthCheckConfig } from "../../../src/domain/health/health-check-config.js";
import type { HealthCheckEvaluation, TargetEvaluation } from "../../../src/domain/health/health-check-evaluation.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../../src/domain/queue/repair-config.js";

/** The domain tests' health check: `workers`, Ready=Unknown for 5 minutes, 100%, node-not-ready, types from sabakan. */
export const WORKERS_CHECK: HealthCheckConfig = {
  name: "workers",
  selector: { matchLabels: { role: "worker" } },
  unhealthyConditions: [{ type: "Ready", status: "Unknown", timeoutSeconds: 300 }],
  maxUnhealthy: { kind: "percent", value: 100 },
  unhealthyRange: null,
  operation: "node-not-ready",
  machineType: { from: "sabakan" },
  paused: false,
};

/** A repair operation `name` without steps. */
export const checkOperation = (name: string) => ({
  operation: name,
  repairSteps: [],
  healthCheckCommand: ["check"],
  commandTimeoutSeconds: 30,
  successCommand: null,
  successCommandTimeout: 30,
});

/** Procedures for the check: IPMI-2.0 machines have node-not-ready, switches only `unreachable`. */
export const CHECK_REPAIR: RepairConfig = {
  ...EMPTY_REPAIR_CONFIG,
  repairProcedures: [
    { machineTypes: ["IPMI-2.0"], repairOperations: [checkOperation("node-not-ready")] },
    { machineTypes: ["switch"], repairOperations: [checkOperation("unreachable")] },
  ],
};

/** A target of the check: node `n3` has address 10.0.0.3 unless given (null: the node has no InternalIP). */
export const target = (node: string, state: TargetEvaluation["state"], address: string | null = `10.0.0.${node.slice(1)}`): TargetEvaluation => ({
  node,
  address,
  addressProblem: address === null ? "the node has no InternalIP" : null,
  state,
  rule: null,
  since: null,
  nextCheckAt: null,
});

/** The check's evaluation of `targets`, its gate open (one remediation allowed) or closed by maxUnhealthy. */
export const evaluation = (targets: TargetEvaluation[], open = true): HealthCheckEvaluation => ({
  name: "workers",
  expected: targets.length,
  currentHealthy: targets.filter((t) => t.state === "healthy").length,
  unhealthyCount: targets.filter((t) => t.state !== "healthy").length,
  gate: open ? { open, remediationsAllowed: 1, reason: null } : { open, remediationsAllowed: 0, reason: "total: 5, unhealthy: 3, maxUnhealthy: 40%" },
  targets,
  nextCheckAt: null,
});
