import type { RepairTimelinePoint } from "../domain/stats/repair-timeline.js";
import type { RepairTimelines } from "./store-port.js";

/** A timeline point with its entry index. */
export interface IndexedTimelinePoint extends RepairTimelinePoint {
  readonly entryIndex: number;
}

/** Groups `points` (in key order) by entry index; when the read hit its `limit`, the last index read is left out. */
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
