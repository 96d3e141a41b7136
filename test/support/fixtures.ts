import type { RepairConfig } from "../../src/domain/queue/repair-config.js";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";

const step = { repairCommand: ["true"], commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 0 };
const operation = (name: string) => ({
  operation: name,
  repairSteps: [step],
  healthCheckCommand: ["echo", "true"],
  commandTimeoutSeconds: 30,
  successCommand: null,
  successCommandTimeout: 30,
});

/**
 * Two procedures: "qemu" and "ipmi-2.0" machines have operations "unreachable" and "unhealthy"; "ipmi-2.0" is also
 * listed by a later procedure with an operation "later-only" that CKE's first-procedure rule must never reach.
 */
export const TEST_REPAIR_CONFIG: RepairConfig = {
  ...EMPTY_REPAIR_CONFIG,
  repairProcedures: [
    { machineTypes: ["qemu", "ipmi-2.0"], repairOperations: [operation("unreachable"), operation("unhealthy")] },
    { machineTypes: ["ipmi-2.0", "dell"], repairOperations: [operation("later-only")] },
  ],
};

/** A fixed `now` for table-driven tests: 2026-11-22T05:00:00.250Z. */
export const NOW = Date.UTC(2026, 10, 22, 5, 0, 0, 250);
