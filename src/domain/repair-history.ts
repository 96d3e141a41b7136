import type { RepairEntry, RepairStatus, RepairStepStatus } from "./repair-entry.js";

/** What kind of change a history record describes. */
export type RepairHistoryKind =
  | "created"
  | "transition"
  | "delete-requested"
  | "dequeued"
  | "backoff-reset"
  | "note";

/** One append-only record of a change to an entry, with the entry's state after it. */
export interface RepairHistoryRecord {
  readonly sequence: number;
  readonly entryIndex: number;
  readonly time: number;
  readonly kind: RepairHistoryKind;
  readonly reason: string;
  readonly detail: string | null;
  readonly status: RepairStatus;
  readonly step: number;
  readonly stepStatus: RepairStepStatus;
  readonly deleted: boolean;
}

/** A record before the store numbers it. */
export type NewRepairHistoryRecord = Omit<RepairHistoryRecord, "sequence">;

/** Describes `entry` (as it is after a change) as a history record of that change. */
export function historyRecordFor(
  entry: RepairEntry,
  kind: RepairHistoryKind,
  reason: string,
  time: number,
  detail: string | null = null,
): NewRepairHistoryRecord {
  return {
    entryIndex: entry.index,
    time,
    kind,
    reason,
    detail,
    status: entry.status,
    step: entry.step,
    stepStatus: entry.stepStatus,
    deleted: entry.deleted,
  };
}
