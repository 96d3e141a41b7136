// The last day's repairs: read from kintsugi's finished-repair records (which outlive the queue's entries), then
// kept current by the entry events; one row per entry index, so records and events that overlap count once.
import type { Entry } from "./model.js";

/** One repair that ended, as the timeline shows it. */
export interface EndedRepair {
  readonly index: string;
  readonly address: string;
  readonly operation: string;
  /** SUCCEEDED, FAILED, or DEQUEUED (deleted from the queue before it finished). */
  readonly status: string;
  readonly finishedAt: string;
  /** Why it failed, as kintsugi says (null when it did not fail, or kintsugi does not know any more). */
  readonly reason: string | null;
}

/** A record as `finishedRepairs` sends it (the shape of the document in queries.ts). */
export interface FinishedRepairRecord {
  readonly index: number;
  readonly address: string;
  readonly operation: string;
  /** succeeded, failed or deleted. */
  readonly status: string;
  readonly finishedAt: string;
  readonly reason: string | null;
}

const DAY_MS = 86_400_000;
const RECORD_STATUSES: Readonly<Record<string, string>> = { succeeded: "SUCCEEDED", failed: "FAILED", deleted: "DEQUEUED" };

const isFinished = (entry: Entry) => entry.status === "SUCCEEDED" || entry.status === "FAILED";

export class RepairTimeline {
  private repairs = new Map<string, EndedRepair>();
  /** Whether the records read were cut at the query's limit (older ones of the day may be missing). */
  truncated = false;

  /**
   * Starts again from the records (read at load and at every reconnection), and the queue's finished entries the
   * records lack (those that finished before kintsugi kept records).
   */
  replace(records: readonly FinishedRepairRecord[], entries: readonly Entry[], limit: number): void {
    this.repairs = new Map();
    for (const r of records) {
      this.repairs.set(String(r.index), {
        index: String(r.index),
        address: r.address,
        operation: r.operation,
        status: RECORD_STATUSES[r.status] ?? r.status.toUpperCase(),
        finishedAt: r.finishedAt,
        reason: r.reason,
      });
    }
    for (const entry of entries) this.entryEvent("SNAPSHOT", entry, null);
    this.truncated = records.length >= limit;
  }

  /**
   * An entry changed: it joins the timeline when it finished, or when it left the queue unfinished (`kind`
   * DEQUEUED, at `time`); an entry already there stays as it is (its record, or the event seen first).
   */
  entryEvent(kind: string, entry: Entry, time: string | null): void {
    if (this.repairs.has(entry.index)) return;
    if (isFinished(entry) && entry.lastTransitionTime !== null) {
      this.repairs.set(entry.index, {
        index: entry.index,
        address: entry.address,
        operation: entry.operation,
        status: entry.status,
        finishedAt: entry.lastTransitionTime,
        reason: entry.failure,
      });
    } else if (kind === "DEQUEUED" && time !== null) {
      this.repairs.set(entry.index, {
        index: entry.index,
        address: entry.address,
        operation: entry.operation,
        status: "DEQUEUED",
        finishedAt: time,
        reason: null,
      });
    }
  }

  /** The repairs that ended in the last day before `now`, newest first; older ones are forgotten. */
  lastDay(now: number): EndedRepair[] {
    const recent: EndedRepair[] = [];
    for (const [index, repair] of this.repairs) {
      const ended = Date.parse(repair.finishedAt);
      if (now - ended > DAY_MS) this.repairs.delete(index);
      else recent.push(repair);
    }
    return recent.sort((a, b) => Date.parse(b.finishedAt) - Date.parse(a.finishedAt) || Number(b.index) - Number(a.index));
  }
}

const HOUR_MS = 3_600_000;

/**
 * How far back the strip reaches, in whole hours: from the oldest repair shown (at least 1 hour, at most the day),
 * so repairs of the last minutes spread over the strip instead of piling into one bar at "now".
 */
export function stripHours(recent: readonly EndedRepair[], now: number): number {
  const oldest = Math.min(now, ...recent.map((r) => Date.parse(r.finishedAt)).filter((t) => !Number.isNaN(t)));
  return Math.min(24, Math.max(1, Math.ceil((now - oldest) / HOUR_MS)));
}
