import type { FinishedRepair } from "../queue/finished-repair.js";
import { statsRangeOf } from "./repair-stats-bounds.js";

/**
 * The longest range one `finishedRepairs` query may cover: the status page reads the last day's, and a few days
 * leave room for a client looking back over a weekend without letting one query walk every kept record.
 */
export const MAX_FINISHED_RANGE_DAYS = 7;
/** The most records one `finishedRepairs` query returns: a day of a large data center's worst repairs. */
export const MAX_FINISHED_LIMIT = 5_000;
export const DEFAULT_FINISHED_LIMIT = 1_000;

export type FinishedRepairsWindow =
  { readonly ok: true; readonly since: number; readonly until: number; readonly limit: number } | { readonly ok: false; readonly message: string };

/**
 * What a `finishedRepairs` query asks for: the range [since, until) (`until` defaults to `now`; at most
 * {@link MAX_FINISHED_RANGE_DAYS} days) and how many records (`limit`, 1 to {@link MAX_FINISHED_LIMIT}, default
 * {@link DEFAULT_FINISHED_LIMIT}), or why not.
 */
export function finishedRepairsWindowOf(since: number, until: number | null, limit: number | null, now: number): FinishedRepairsWindow {
  const range = statsRangeOf(since, until, now, MAX_FINISHED_RANGE_DAYS);
  if (!range.ok) return range;
  const count = limit ?? DEFAULT_FINISHED_LIMIT;
  if (!Number.isInteger(count) || count < 1 || count > MAX_FINISHED_LIMIT)
    return { ok: false, message: `limit must be from 1 to ${MAX_FINISHED_LIMIT}, got ${count}` };
  return { ok: true, since: range.since, until: range.until, limit: count };
}

/**
 * The records that ended in the window, newest first, at most its limit. `records` are those ended at or after the
 * window's start, newest first (as the finished-repair port lists them).
 */
export function finishedRepairsIn(records: readonly FinishedRepair[], window: { readonly until: number; readonly limit: number }): FinishedRepair[] {
  return records.filter((r) => r.finishedAt < window.until).slice(0, window.limit);
}
