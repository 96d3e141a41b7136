import type { RepairTimelinePoint } from "../domain/stats/repair-timeline.js";
import type { RepairTimelines } from "./store-port.js";

/** A point as both backends read it: with its entry index. */
export interface IndexedTimelinePoint extends RepairTimelinePoint {
  readonly entryIndex: number;
}

/**
 * Groups `points` (index then sequence order, as one bounded read returns them) by entry index. When the read hit
 * its `limit`, the last index read may be cut short, so it is left out and `completeThrough` stops before it.
 */
export function timelinesOf(points: readonly IndexedTimelinePoint[], lastIndex: number, limit: number): RepairTimelines {
  const truncated = points.length >= limit;
  const cut = truncated && points.length > 0 ? points[points.length - 1]!.entryIndex : null;
  const timelines = new Map<number, RepairTimelinePoint[]>();
  for (const { entryIndex, time, status, step, stepStatus } of points) {
    if (entryIndex === cut) break;
    const list = timelines.get(entryIndex) ?? [];
    list.push({ time, status, step, stepStatus });
    timelines.set(entryIndex, list);
  }
  return { timelines, completeThrough: cut === null ? (truncated ? -1 : lastIndex) : cut - 1 };
}
