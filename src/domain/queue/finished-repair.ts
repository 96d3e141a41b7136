import { isFinished, type RepairEntry } from "./repair-entry.js";
import { proofOutcomeOf, type ProofOutcome } from "../proof/repair-evidence.js";
import type { RepairHistoryRecord } from "./repair-history.js";

/** How a repair ended: its entry's final status, or `deleted` when it was dequeued before it finished. */
export type FinishedRepairStatus = (typeof FINISHED_REPAIR_STATUSES)[number];

export const FINISHED_REPAIR_STATUSES = ["succeeded", "failed", "deleted"] as const;

/**
 * A small record of one repair that ended, kept by the store after its entry leaves the queue, so that what was
 * repaired (and how it went) outlives the queue: pacing and escalation read it on every replica and after restarts.
 */
export interface FinishedRepair {
  /** The sequence of the history record that ended it (unique, monotonic: records are kept and pruned in this order). */
  readonly sequence: number;
  readonly entryIndex: number;
  readonly address: string;
  readonly machineType: string;
  readonly operation: string;
  readonly source: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  /** When it finished (its last transition), or when it was dequeued unfinished; milliseconds since the epoch. */
  readonly finishedAt: number;
  readonly status: FinishedRepairStatus;
  /**
   * How its proof of repair ended (see proofOutcomeOf), so pacing reads the same outcome after the entry left the
   * queue; null when its operation required no proof, or when it did not finish.
   */
  readonly proof: ProofOutcome | null;
  /**
   * Why it failed: the reason of the change that made it `failed` (a failed command's ends with the tail of its stderr,
   * see stderrTail), at most {@link FAILURE_REASON_CHARS} characters. Absent when it did not fail, and in records
   * kept before kintsugi kept reasons.
   */
  readonly reason?: string;
}

/** The longest failure reason a finished-repair record keeps (a reason quotes at most 200 characters of stderr). */
export const FAILURE_REASON_CHARS = 500;

/**
 * How many finished repairs a store keeps (the newest by sequence). The consumers look back a bounded time: pacing
 * folds at most its own 5,000 outcomes, and an escalation window counts one machine's repairs; 10,000 repairs is
 * weeks of a large data center's worst days (a day with 1,000 repairs is already a disaster), while the records stay
 * small enough (about 250 bytes each, 750 with a failure's longest reason: 2.5 to 7.5 MB in all) for the etcd mirror
 * to hold them all and serve them synchronously.
 */
export const KEPT_FINISHED_REPAIRS = 10_000;

/**
 * The finished-repair record a committed change leaves, or null. An entry gets one record, once: when a change
 * finishes it (its previous state unfinished), or when it is dequeued without a record yet (unfinished: `deleted`;
 * finished before records were kept: its final status). `recorded` says whether the store already holds one for the
 * entry's index.
 */
export function finishedRepairOf(
  change: { readonly entry: RepairEntry; readonly previous: RepairEntry | null; readonly record: RepairHistoryRecord },
  recorded: boolean,
): FinishedRepair | null {
  if (recorded) return null;
  const { entry, previous, record } = change;
  const finished = isFinished(entry);
  if (record.kind !== "dequeued" && !(finished && (previous === null || !isFinished(previous)))) return null;
  return {
    sequence: record.sequence,
    entryIndex: entry.index,
    address: entry.address,
    machineType: entry.machineType,
    operation: entry.operation,
    source: entry.source,
    createdAt: entry.createdAt,
    finishedAt: finished ? (entry.lastTransitionTime ?? record.time) : record.time,
    status: finished ? (entry.status as "succeeded" | "failed") : "deleted",
    proof: finished ? (proofOutcomeOf(entry) ?? null) : null,
    // The change that failed it says why; a dequeue of an entry that failed before records were kept does not.
    ...(entry.status === "failed" && record.kind !== "dequeued" && { reason: record.reason.slice(0, FAILURE_REASON_CHARS) }),
  };
}

/** The records finished at or after `since` (all when null), newest first (by finish time, then sequence). */
export function finishedSince(records: readonly FinishedRepair[], since: number | null): FinishedRepair[] {
  return records.filter((r) => since === null || r.finishedAt >= since).sort((a, b) => b.finishedAt - a.finishedAt || b.sequence - a.sequence);
}
