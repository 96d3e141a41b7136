import type { FinishedRepair } from "../domain/finished-repair.js";
import type { RecordedRepair } from "../domain/repair-stats.js";
import type { FinishedRepairPort, RepairEntryPort } from "../store/store-port.js";

/**
 * The most history records one statistics read reads. The finished-repair records (at most 10,000) say which entries
 * ended in the range; their histories are one bounded read of their index range. A repair has a handful of records
 * (created, a transition or two per step, the dequeue), so 100,000 covers every kept repair's whole history; past
 * it, the repairs whose history was not read are still counted (entries, outcomes, time to repair), and the answer
 * says how many were read (`withHistory`).
 */
export const MAX_STATS_HISTORY_RECORDS = 100_000;

/** The repairs that finished in [since, until) (ms), newest first, with their histories as far as one bounded read goes. */
export async function readRecordedRepairs(
  entries: Pick<RepairEntryPort, "timelines">,
  finished: FinishedRepairPort,
  since: number,
  until: number,
  limit = MAX_STATS_HISTORY_RECORDS,
): Promise<RecordedRepair[]> {
  const records = finished.list(since).filter((r) => r.finishedAt < until);
  if (records.length === 0) return [];
  const { first, last } = indexRangeOf(records);
  const read = await entries.timelines(first, last, limit);
  return records.map((repair) => ({
    repair,
    history: read.timelines.get(repair.entryIndex) ?? null,
  }));
}

function indexRangeOf(records: readonly FinishedRepair[]): { first: number; last: number } {
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const r of records) {
    first = Math.min(first, r.entryIndex);
    last = Math.max(last, r.entryIndex);
  }
  return { first, last };
}
