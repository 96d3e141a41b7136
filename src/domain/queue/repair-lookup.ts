import { findRepairOperation, type RepairConfig, type RepairOperationConfig } from "./repair-config.js";
import type { RepairEntry } from "./repair-entry.js";
import type { RepairSnapshot } from "./repair-plan.js";

/** The `repair` part of a snapshot, from CKE's `repair` configuration. */
export function snapshotRepairConfig(config: RepairConfig): RepairSnapshot["repair"] {
  return {
    maxConcurrentRepairs: config.maxConcurrentRepairs,
    evictionTimeoutSeconds: config.evictionTimeoutSeconds,
    lookup: (entry: RepairEntry): { operation: RepairOperationConfig } | { message: string } => {
      const found = findRepairOperation(config, entry.machineType, entry.operation);
      return found.ok ? { operation: found.operation } : { message: found.message };
    },
  };
}
