import { REPAIR_STATUSES, type RepairEntry, type RepairStatus } from "../queue/repair-entry.js";

/** One series of `machine_repair_status`: whether any entry of `address` has `status`. */
export interface MachineRepairStatus {
  readonly address: string;
  readonly status: RepairStatus;
  readonly value: 0 | 1;
}

/**
 * CKE's `machine_repair_status` (cke's repair.go, BuildMachineRepairStatus): for every address of a cluster node
 * and of a repair entry, one series per repair status, 1 when any entry of that address has the status and 0
 * otherwise, so a node without entries still shows all its statuses at 0.
 */
export function machineRepairStatuses(nodeAddresses: readonly string[], entries: readonly Pick<RepairEntry, "address" | "status">[]): MachineRepairStatus[] {
  const held = new Map<string, Set<RepairStatus>>();
  for (const address of nodeAddresses) held.set(address, new Set());
  for (const e of entries) {
    const statuses = held.get(e.address) ?? new Set<RepairStatus>();
    statuses.add(e.status);
    held.set(e.address, statuses);
  }
  return [...held].flatMap(([address, statuses]) =>
    REPAIR_STATUSES.map((status) => ({ address, status, value: statuses.has(status) ? (1 as const) : (0 as const) })),
  );
}
