import { KEPT_FINISHED_REPAIRS, type FinishedRepair } from "../domain/queue/finished-repair.js";
import { historySummaryOf, type RepairHistorySummary } from "../domain/stats/repair-history-summary.js";
import { repairStats, type RecordedRepair, type RepairStatsDimension, type RepairStatsGroup } from "../domain/stats/repair-stats.js";
import type { FinishedRepairPort, RepairEntryPort } from "../store/store-port.js";
import { FinishedInOrder } from "./finished-in-order.js";

/**
 * The most history records one statistics read reads. A repair has a handful of records (created, a transition or
 * two per step, the dequeue), so 100,000 covers every kept repair's whole history; past it, the repairs whose
 * history was not read are still counted (entries, outcomes, time to repair), and the answer says how many were read
 * (`withHistory`). The next query reads on from where this one stopped.
 */
export const MAX_STATS_HISTORY_RECORDS = 100_000;

/** A repair's summary (null: it has no history), and what ended it, which the summary was computed for. */
interface Summarized {
  readonly finishedAt: number;
  readonly status: FinishedRepair["status"];
  readonly summary: RepairHistorySummary | null;
}

/**
 * One read of the histories of `records`' index range (at most `limit` records): the summaries of the repairs whose
 * history was read whole, by entry index.
 */
export async function summarizeHistories(
  entries: Pick<RepairEntryPort, "timelines">,
  records: readonly FinishedRepair[],
  limit: number,
): Promise<Map<number, RepairHistorySummary | null>> {
  const read = new Map<number, RepairHistorySummary | null>();
  if (records.length === 0) return read;
  const ordered = [...records].sort((a, b) => a.entryIndex - b.entryIndex);
  const first = ordered[0]!.entryIndex;
  const last = ordered[ordered.length - 1]!.entryIndex;
  const { timelines, completeThrough } = await entries.timelines(first, last, limit);
  for (const r of ordered) {
    if (r.entryIndex > completeThrough) break;
    const history = timelines.get(r.entryIndex);
    // A repair with no record at all stays without one: history is append-only and indexes are never reused.
    read.set(r.entryIndex, history === undefined ? null : historySummaryOf(history, r.finishedAt));
  }
  return read;
}

/**
 * What a statistics query reads of the ended repairs: each one's history summary, as the leader stored it with its
 * record (see RepairSummaryKeeper), so no replica reads histories to answer. A repair not summarized yet (it ended a
 * moment ago, or the leader is still at the records of an older kintsugi) is summarized here by one bounded read and
 * remembered, at most `bound` of them, the lowest entry indexes dropped first.
 */
export class RepairSummaries {
  /** By entry index; a summary counts only for the end it was computed for (see {@link keptFor}). */
  private readonly summaries = new Map<number, Summarized>();
  /** How many times {@link summaries} changed: with the store's kept records, the version a view is of. */
  private summariesChanged = 0;
  /** The kept records in the order they ended, of the last version asked for. */
  private view: FinishedInOrder | null = null;
  /** The read under way (and those waiting for it), settled or not. */
  private reading: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly entries: Pick<RepairEntryPort, "timelines">,
    private readonly finished: Pick<FinishedRepairPort, "kept" | "summaryOf">,
    private readonly bound = KEPT_FINISHED_REPAIRS,
    private readonly readLimit = MAX_STATS_HISTORY_RECORDS,
  ) {}

  /** How many repairs are summarized in memory (not stored yet when they were asked for). */
  get size(): number {
    return this.summaries.size;
  }

  /**
   * The repairs that finished in [since, until) (ms), newest first, each with its summary as far as one bounded read
   * goes. One read at a time: requests that come together wait for the one before, and find what it summarized
   * (four clients of a converted store's first repairStats read its 100,000 history records once, not four times).
   */
  read(since: number, until: number): Promise<RecordedRepair[]> {
    return this.inTurn(() => this.readNow(since, until));
  }

  /**
   * repairStats of the repairs that finished in [since, until) (see {@link read}). Without the rack among `groupBy`
   * (racks are sabakan's answer of the moment) and with every summary in the range known, the answer is the one
   * computed for the same repairs and grouping before, until a repair ends or a summary is stored: requests that
   * ask again and again, however many at once, cost two binary searches each.
   */
  stats(since: number, until: number, groupBy: readonly RepairStatsDimension[], racks: ReadonlyMap<string, number>): Promise<readonly RepairStatsGroup[]> {
    return this.inTurn(async () => {
      const view = this.current();
      const range = view.range(since, until);
      const withoutRack = groupBy.filter((d): d is Exclude<RepairStatsDimension, "rack"> => d !== "rack");
      if (withoutRack.length === groupBy.length && view.unknownIn(range).length === 0) return view.statsIn(range, withoutRack);
      return repairStats(await this.readNow(since, until), groupBy, racks);
    });
  }

  /**
   * The summaries of `records` (by entry index) that are known here or fit one read of at most `limit` history
   * records, in the same turn as the queries: the leader's keeper asks here, so a query and the keeper that come
   * together read each history once (a query beside the keeper's backfill waited for both reads, each slowed by
   * the other's turns).
   */
  summarize(records: readonly FinishedRepair[], limit: number): Promise<Map<number, RepairHistorySummary | null>> {
    return this.inTurn(() => this.summarizeNow(records, limit));
  }

  /** Runs `work` after the reads already asked for. */
  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const turn = this.reading.then(work);
    this.reading = turn.catch(() => undefined);
    return turn;
  }

  private async readNow(since: number, until: number): Promise<RecordedRepair[]> {
    const view = this.current();
    const range = view.range(since, until);
    const unknown = view.unknownIn(range);
    if (unknown.length === 0) return view.repairsIn(range);
    const read = await this.summarizeNow(unknown, this.readLimit);
    // What this read summarized answers even when the bound dropped it at once (a range wider than the bound).
    return view.repairsIn(range).map((r) => (r.summary === null ? { repair: r.repair, summary: read.get(r.repair.entryIndex) ?? null } : r));
  }

  /** The view of the store's kept records and of what is summarized here now: the last one while neither changed. */
  private current(): FinishedInOrder {
    const kept = this.finished.kept();
    if (this.view?.kept !== kept || this.view.summarizedHere !== this.summariesChanged) {
      this.view = new FinishedInOrder(kept, this.summariesChanged, (r) => {
        const stored = this.finished.summaryOf(r.sequence);
        return stored !== undefined ? stored : this.keptFor(r)?.summary;
      });
    }
    return this.view;
  }

  /** What is kept here of `records`, and one bounded read of the rest, which is kept. */
  private async summarizeNow(records: readonly FinishedRepair[], limit: number): Promise<Map<number, RepairHistorySummary | null>> {
    const known = new Map<number, RepairHistorySummary | null>();
    const missing: FinishedRepair[] = [];
    for (const r of records) {
      const kept = this.keptFor(r);
      if (kept === undefined) missing.push(r);
      else known.set(r.entryIndex, kept.summary);
    }
    const read = await summarizeHistories(this.entries, missing, limit);
    for (const r of missing) {
      const summary = read.get(r.entryIndex);
      if (summary === undefined) continue;
      this.summaries.set(r.entryIndex, { finishedAt: r.finishedAt, status: r.status, summary });
      this.summariesChanged++;
      known.set(r.entryIndex, summary);
    }
    this.dropOldest();
    return known;
  }

  /** Past the bound, the summaries of the lowest entry indexes (the repairs the store prunes first) go. */
  private dropOldest(): void {
    const excess = this.summaries.size - this.bound;
    if (excess <= 0) return;
    const oldest = [...this.summaries.keys()].sort((a, b) => a - b).slice(0, excess);
    for (const index of oldest) this.summaries.delete(index);
    this.summariesChanged++;
  }

  /**
   * The summary kept for `r`, if it was computed for the same end: a stored record that differs (a restored
   * database, another store) is summarized anew.
   */
  private keptFor(r: FinishedRepair): Summarized | undefined {
    const kept = this.summaries.get(r.entryIndex);
    return kept !== undefined && kept.finishedAt === r.finishedAt && kept.status === r.status ? kept : undefined;
  }
}
