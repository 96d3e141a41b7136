import type { RepairEntry, RepairStatus, RepairStepStatus } from "./repair-entry.js";

/** What kind of change a history record describes. */
export type RepairHistoryKind = "created" | "transition" | "delete-requested" | "dequeued" | "backoff-reset" | "note";

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
  /**
   * Who made the change: a token's name for API changes ("anonymous" without one), `kintsugi` for the runner,
   * `sabakan` or `health-check:NAME` for the trigger that enqueued the entry, `unknown` for API records older than
   * actors (see migration 004).
   */
  readonly actor: string;
  /**
   * kintsugi: the replica that wrote the record through its term as leader (its runner, poller, health checks);
   * absent on other writes and on records older than the field. Tells a deposed leader's late write from its
   * successor's.
   */
  readonly replica?: string;
}

/** A record before the store numbers it. */
export type NewRepairHistoryRecord = Omit<RepairHistoryRecord, "sequence">;

/** The actor of changes the runner makes on its own. */
export const RUNNER_ACTOR = "kintsugi";

/** Describes `entry` (as it is after a change) as a history record of that change, made by `actor`. */
export function historyRecordFor(
  entry: RepairEntry,
  kind: RepairHistoryKind,
  reason: string,
  time: number,
  actor: string,
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
    actor,
  };
}
