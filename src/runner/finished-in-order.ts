import type { FinishedRepair } from "../domain/queue/finished-repair.js";
import type { RepairHistorySummary } from "../domain/stats/repair-history-summary.js";
import { lowerBound } from "../domain/shared/sorted-search.js";
import { REPAIR_STATS_DIMENSIONS, repairStats, type RecordedRepair, type RepairStatsDimension, type RepairStatsGroup } from "../domain/stats/repair-stats.js";

/**
 * The statistics kept per view: one per range and grouping asked for, the oldest dropped first past it (a dashboard
 * asks a handful; a client that varies its range makes new ones and only pushes old ones out).
 */
const KEPT_ANSWERS = 16;

/** Positions in a {@link FinishedInOrder}: the repairs at [from, to). */
export interface FinishedRange {
  readonly from: number;
  readonly to: number;
}

/**
 * One version of the kept finished repairs (the store's `kept()` array, and what the replica summarized itself when
 * it was built) in the order they finished, each with its history's summary as far as it was known then. A range of
 * time is two binary searches, and the statistics of a range are computed once per view: with 10,000 kept repairs,
 * each statistics request filtered, sorted and summarized all of them, and four clients asking again and again kept
 * the event loop busy between the working queue's passes. A new repair or summary makes a new view.
 */
export class FinishedInOrder {
  /** Oldest end first (ties: the lower sequence first). */
  private readonly repairs: readonly RecordedRepair[];
  private readonly ends: Float64Array;
  /** unknownBefore[i]: how many of the first i repairs have no summary known (neither stored nor summarized here). */
  private readonly unknownBefore: Uint32Array;
  private readonly answers = new Map<string, readonly RepairStatsGroup[]>();

  /**
   * `kept`: the store's records of this version; `summaryOf`: a record's summary, stored or summarized here
   * (undefined: unknown, null: it has no history).
   */
  constructor(
    readonly kept: readonly FinishedRepair[],
    readonly summarizedHere: number,
    summaryOf: (record: FinishedRepair) => RepairHistorySummary | null | undefined,
  ) {
    // The store keeps records in sequence order, which is nearly the order they ended: the sort finds the runs.
    const ordered = [...kept].sort((a, b) => a.finishedAt - b.finishedAt || a.sequence - b.sequence);
    this.ends = new Float64Array(ordered.length);
    this.unknownBefore = new Uint32Array(ordered.length + 1);
    const repairs: RecordedRepair[] = [];
    for (const [i, repair] of ordered.entries()) {
      const summary = summaryOf(repair);
      this.ends[i] = repair.finishedAt;
      this.unknownBefore[i + 1] = this.unknownBefore[i]! + (summary === undefined ? 1 : 0);
      repairs.push({ repair, summary: summary ?? null });
    }
    this.repairs = repairs;
  }

  /** The repairs that finished in [since, until) (ms). */
  range(since: number, until: number): FinishedRange {
    const from = this.firstEndingAtOrAfter(since);
    return { from, to: Math.max(from, this.firstEndingAtOrAfter(until)) };
  }

  /** The records of `range` whose summary is not known. */
  unknownIn({ from, to }: FinishedRange): FinishedRepair[] {
    if (this.unknownBefore[to] === this.unknownBefore[from]) return [];
    const unknown: FinishedRepair[] = [];
    for (let i = from; i < to; i++) if (this.unknownBefore[i + 1] !== this.unknownBefore[i]) unknown.push(this.repairs[i]!.repair);
    return unknown;
  }

  /** The repairs of `range`, newest first, each with its summary (null: none, or not known). */
  repairsIn({ from, to }: FinishedRange): RecordedRepair[] {
    return this.repairs.slice(from, to).reverse();
  }

  /**
   * repairStats of `range` (every summary in it known) grouped by `groupBy` without the rack, which sabakan answers
   * anew each time: computed once per view, range and grouping, and shared by every request that asks it.
   */
  statsIn(range: FinishedRange, groupBy: readonly Exclude<RepairStatsDimension, "rack">[]): readonly RepairStatsGroup[] {
    const dimensions = REPAIR_STATS_DIMENSIONS.filter((d) => groupBy.includes(d as Exclude<RepairStatsDimension, "rack">));
    const key = `${range.from}:${range.to}:${dimensions.join(",")}`;
    let answer = this.answers.get(key);
    if (answer === undefined) {
      answer = Object.freeze(repairStats(this.repairsIn(range), dimensions, new Map()));
      if (this.answers.size >= KEPT_ANSWERS) this.answers.delete(this.answers.keys().next().value!);
      this.answers.set(key, answer);
    }
    return answer;
  }

  /** The position of the first repair that ended at or after `time`. */
  private firstEndingAtOrAfter(time: number): number {
    return lowerBound(0, this.ends.length, (i) => this.ends[i]! < time);
  }
}
