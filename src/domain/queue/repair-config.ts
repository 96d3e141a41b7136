import type { LabelSelector } from "../shared/label-selector.js";
import type { PacingDomain } from "../pacing/repair-pacing.js";
import type { EscalationConfig } from "../escalation/repair-escalation.js";
import type { SuccessProof } from "../proof/repair-evidence.js";

/** One repair step, with CKE's defaults applied. Commands are argv arrays; the address is appended when run. */
export interface RepairStepConfig {
  readonly repairCommand: readonly string[];
  /** 0 = no timeout. Default 30. */
  readonly commandTimeoutSeconds: number;
  readonly commandRetries: number;
  readonly commandInterval: number;
  readonly needDrain: boolean;
  /** 0 (or absent) = move on at once. */
  readonly watchSeconds: number;
}

/** One repair operation of a procedure, with CKE's defaults applied. */
export interface RepairOperationConfig {
  readonly operation: string;
  readonly repairSteps: readonly RepairStepConfig[];
  readonly healthCheckCommand: readonly string[];
  /** Health check timeout; 0 = none. Default 30. */
  readonly commandTimeoutSeconds: number;
  readonly successCommand: readonly string[] | null;
  /** 0 = none. Default 30. */
  readonly successCommandTimeout: number;
  /** Run once before an entry's first drain or repair command (kintsugi); absent or null = none. */
  readonly diagnosticsCommand?: readonly string[] | null;
  /** 0 = none. Default 30. */
  readonly diagnosticsTimeoutSeconds?: number;
  /** Proof of repair required before an entry succeeds (`success_requires`, `success_dwell_seconds`); absent = CKE. */
  readonly successProof?: SuccessProof;
}

/** The operations for a set of machine types. */
export interface RepairProcedureConfig {
  readonly machineTypes: readonly string[];
  readonly repairOperations: readonly RepairOperationConfig[];
}

/** CKE's cluster.yml `repair` section, with defaults applied. */
export interface RepairConfig {
  readonly repairProcedures: readonly RepairProcedureConfig[];
  readonly maxConcurrentRepairs: number;
  /** null = every namespace is protected (as is `{}`). */
  readonly protectedNamespaces: LabelSelector | null;
  /** null = every running Job pod is protected (as is `{}`). */
  readonly protectedJobPods: LabelSelector | null;
  readonly evictRetries: number;
  readonly evictInterval: number;
  readonly evictionTimeoutSeconds: number;
  /** kintsugi: slow start per failure domain (`repair.pacing`); absent = off (CKE). */
  readonly pacing?: { readonly domains: readonly PacingDomain[] };
  /** kintsugi: repeat offenders escalated (`repair.escalation`, see repair-escalation.ts); absent = off (CKE). */
  readonly escalation?: EscalationConfig;
}

/** A config with no procedures: every addRepairEntry is refused until procedures are configured. */
export const EMPTY_REPAIR_CONFIG: RepairConfig = {
  repairProcedures: [],
  maxConcurrentRepairs: 1,
  protectedNamespaces: null,
  protectedJobPods: null,
  evictRetries: 0,
  evictInterval: 0,
  evictionTimeoutSeconds: 600,
};

export type RepairOperationLookup =
  | { readonly ok: true; readonly procedure: RepairProcedureConfig; readonly operation: RepairOperationConfig }
  | { readonly ok: false; readonly reason: "procedure-not-found" | "operation-not-found"; readonly message: string };

/**
 * CKE's lookup: the procedure is the FIRST whose `machine_types` contains the type; the operation is the first
 * with that name within that procedure only (later procedures are never tried).
 */
export function findRepairOperation(config: RepairConfig, machineType: string, operation: string): RepairOperationLookup {
  const procedure = config.repairProcedures.find((p) => p.machineTypes.includes(machineType));
  if (!procedure) {
    return { ok: false, reason: "procedure-not-found", message: `repair procedure not found for machine type ${JSON.stringify(machineType)}` };
  }
  const found = procedure.repairOperations.find((o) => o.operation === operation);
  if (!found) {
    return {
      ok: false,
      reason: "operation-not-found",
      message: `repair operation ${JSON.stringify(operation)} not found for machine type ${JSON.stringify(machineType)}`,
    };
  }
  return { ok: true, procedure, operation: found };
}
