import type { HealthCheckConfig } from "../../src/domain/health-check-config.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../src/domain/repair-config.js";

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
export const checkOperation = (name: string) => ({ operation: name, repairSteps: [], healthCheckCommand: ["check"], commandTimeoutSeconds: 30, successCommand: null, successCommandTimeout: 30 });

/** Procedures for the check: IPMI-2.0 machines have node-not-ready, switches only `unreachable`. */
export const CHECK_REPAIR: RepairConfig = { ...EMPTY_REPAIR_CONFIG, repairProcedures: [{ machineTypes: ["IPMI-2.0"], repairOperations: [checkOperation("node-not-ready")] }, { machineTypes: ["switch"], repairOperations: [checkOperation("unreachable")] }] };
