import type { RepairHistoryRecord } from "../queue/repair-history.js";

/** What analytics read of a history record: when, and the entry's state after it. */
export type RepairTimelinePoint = Pick<RepairHistoryRecord, "time" | "status" | "step" | "stepStatus">;

/** One point of an entry's timeline, with the entry it belongs to: as a read of many entries' histories gives it. */
export type IndexedTimelinePoint = RepairTimelinePoint & { readonly entryIndex: number };

/** What a bounded read of the histories of a range of entries gives. */
export interface RepairTimelines {
  /** Each index's points (indexes without history are absent), whole for every index up to `completeThrough`. */
  readonly timelines: ReadonlyMap<number, readonly RepairTimelinePoint[]>;
  /** The highest index whose history was read whole: the last index asked for unless the read was cut short. */
  readonly completeThrough: number;
}

/**
 * Groups `points` (in key order: by index, then sequence) of the histories of entries up to `lastIndex` by entry
 * index; when the read was cut short, the last index read may be incomplete, so it is left out.
 */
export function timelinesOf(points: readonly IndexedTimelinePoint[], lastIndex: number, cutShort: boolean): RepairTimelines {
  const cut = cutShort ? (points.at(-1)?.entryIndex ?? null) : null;
  const timelines = new Map<number, RepairTimelinePoint[]>();
  for (const { entryIndex, time, status, step, stepStatus } of points) {
    if (entryIndex === cut) break;
    const list = timelines.get(entryIndex) ?? [];
    list.push({ time, status, step, stepStatus });
    timelines.set(entryIndex, list);
  }
  return { timelines, completeThrough: cut === null ? (cutShort ? -1 : lastIndex) : cut - 1 };
}

/**
 * The time an entry spent draining, in milliseconds: the sum of every interval between a history record that leaves
 * it processing and draining and the next record (or `end`, when the history stops there). Records that do not change
 * the step status (notes, back-off resets) continue the interval they fall in, so they neither add nor lose time.
 * `history` is one entry's records, oldest first.
 */
export function drainingTimeOf(history: readonly RepairTimelinePoint[], end: number): number {
  let total = 0;
  for (let i = 0; i < history.length; i++) {
    const record = history[i]!;
    if (record.status !== "processing" || record.stepStatus !== "draining") continue;
    const next = history[i + 1]?.time ?? end;
    if (next > record.time) total += next - record.time;
  }
  return total;
}

/**
 * How many steps a repair took: one more than the highest step its history reached while processing (a repair
 * whose first step succeeded needed 1), or 0 when it never started (dequeued while queued, or succeeded at once by
 * proof of repair).
 */
export function stepsNeededOf(history: readonly RepairTimelinePoint[]): number {
  let highest = -1;
  for (const record of history) {
    if (record.status === "processing" && record.step > highest) highest = record.step;
  }
  return highest + 1;
}

/**
 * The nearest-rank percentile `p` (0 < p <= 100) of `values`, or null when there are none: the smallest value that at
 * least p% of the values are at or below, so it is always one of the values (p50 of [1, 2, 3, 4] is 2).
 */
export function percentileOf(values: readonly number[], p: number): number | null {
  return percentileOfSorted(ascending(values), p);
}

/** `values` in ascending order, in a new array (a typed array sorts numbers natively, which 10,000 values notice). */
export function ascending(values: readonly number[]): Float64Array {
  return Float64Array.from(values).sort();
}

/** {@link percentileOf} of values already in ascending order. */
export function percentileOfSorted(sorted: ArrayLike<number>, p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1]!;
}
