import type { FinishedRepair } from "../../../src/domain/queue/finished-repair.js";
import type { RepairHistoryRecord } from "../../../src/domain/queue/repair-history.js";
import type { RepairStatus, RepairStepStatus } from "../../../src/domain/queue/repair-entry.js";

export const T = Date.UTC(2026, 10, 22, 6, 0, 0);
export const MIN = 60_000;

/** A finished-repair record of entry `entryIndex`, created at T + createdMin minutes and finished durationMin later. */
export function finished(entryIndex: number, over: Partial<FinishedRepair> & { createdMin?: number; durationMin?: number } = {}): FinishedRepair {
  const { createdMin = 0, durationMin = 10, ...rest } = over;
  const createdAt = T + createdMin * MIN;
  return {
    sequence: entryIndex * 100,
    entryIndex,
    address: `10.0.0.${entryIndex}`,
    machineType: "qemu",
    operation: "unhealthy",
    source: "sabakan",
    createdAt,
    finishedAt: createdAt + durationMin * MIN,
    status: "succeeded",
    proof: null,
    ...rest,
  };
}

/** A history of entry `entryIndex`: one record per [minute, status, step, stepStatus]. */
export function history(entryIndex: number, records: ReadonlyArray<readonly [number, RepairStatus, number, RepairStepStatus]>): RepairHistoryRecord[] {
  return records.map(([minute, status, step, stepStatus], i) => ({
    sequence: entryIndex * 100 + i,
    entryIndex,
    time: T + minute * MIN,
    kind: i === 0 ? "created" : "transition",
    reason: "",
    detail: null,
    status,
    step,
    stepStatus,
    deleted: false,
    actor: "kintsugi",
  }));
}
