import { KEPT_FINISHED_REPAIRS, type FinishedRepair } from "../domain/finished-repair.js";
import { historySummaryOf, type RepairHistorySummary } from "../domain/repair-history-summary.js";
import type { RecordedRepair } from "../domain/repair-stats.js";
import type { FinishedRepairPort, RepairEntryPort } from "../store/store-port.js";

/**
 * The most history records one statistics read reads. A repair has a handful of records (created, a transition or
 * two per step, the dequeue), so 100,000 covers every kept repair's whole history; past it, the repairs whose
 * history was not read are still counted (entries, outcomes, time to repair), and the answer says how many were read
 * (`withHistory`). The next query reads on from where this one stopped.
 */
export const MAX_STATS_HISTORY_RECORDS = 100_000;

/** The repairs one warm-up read summarizes at a time, and the records it reads at most: no read holds the process long. */
const WARM_BATCH = 500;
const WARM_READ_LIMIT = 10_000;

/** A repair's summary (null: it has no history), and what ended it, which the summary was computed for. */
interface Summarized {
  readonly finishedAt: number;
  readonly status: FinishedRepair["status"];
  readonly summary: RepairHistorySummary | null;
}

/**
 * The summaries of the ended repairs' histories (see {@link RepairHistorySummary}), kept in memory so that a
 * statistics query reads only the histories of the repairs that ended since the last one: they are the newest, so one
 * bounded read of an index range. At most `bound` are kept (by default as many as the store keeps finished repairs),
 * the oldest summarized dropped first. Backend-agnostic: every replica keeps its own and answers the same.
 */
export class RepairSummaries {
  /** By entry index; a summary counts only for the end it was computed for (see {@link keptFor}). */
  private readonly summaries = new Map<number, Summarized>();
  private warming: Promise<void> | null = null;
  private stopped = false;

  constructor(
    private readonly entries: Pick<RepairEntryPort, "timelines">,
    private readonly finished: FinishedRepairPort,
    private readonly bound = KEPT_FINISHED_REPAIRS,
    private readonly readLimit = MAX_STATS_HISTORY_RECORDS,
  ) {}

  /** How many repairs are summarized. */
  get size(): number {
    return this.summaries.size;
  }

  /** The repairs that finished in [since, until) (ms), newest first, each with its summary as far as one bounded read goes. */
  async read(since: number, until: number): Promise<RecordedRepair[]> {
    const records = this.finished.list(since).filter((r) => r.finishedAt < until);
    const known = records.map((r) => this.keptFor(r));
    const read = await this.summarize(
      records.filter((_, i) => known[i] === undefined),
      this.readLimit,
    );
    // What this read summarized answers even when the bound dropped it at once (a range wider than the bound).
    return records.map((repair, i) => ({ repair, summary: (known[i] ?? read.get(repair.entryIndex))?.summary ?? null }));
  }

  /**
   * Summarizes every kept repair in the background, oldest first, a batch at a time with a turn of the event loop
   * between, so neither start-up nor a pass waits for it; a failed read ends it (queries read what they need). Only
   * the newest `bound` repairs, in at most as many batches as that takes. Resolves when it ends.
   */
  warm(onError: (err: unknown) => void): Promise<void> {
    return (this.warming ??= (async () => {
      // At most the bound's worth of batches (and one more): past the bound, what it drops would be read again.
      for (let round = 0; round * WARM_BATCH <= this.bound; round++) {
        await new Promise((resolve) => setImmediate(resolve));
        if (this.stopped) return;
        const missing = this.finished
          .list()
          .slice(0, this.bound)
          .filter((r) => this.keptFor(r) === undefined);
        if (missing.length === 0) return;
        const batch = missing.sort((a, b) => a.entryIndex - b.entryIndex).slice(0, WARM_BATCH);
        if ((await this.summarize(batch, Math.min(WARM_READ_LIMIT, this.readLimit))).size === 0) return;
      }
    })().catch(onError));
  }

  /** Ends the warm-up (its current read finishes first). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.warming;
  }

  /** One read of the histories of `records`' index range; keeps (and returns) the summaries of those read whole. */
  private async summarize(records: readonly FinishedRepair[], limit: number): Promise<Map<number, Summarized>> {
    const read = new Map<number, Summarized>();
    if (records.length === 0) return read;
    const ordered = [...records].sort((a, b) => a.entryIndex - b.entryIndex);
    const first = ordered[0]!.entryIndex;
    const last = ordered[ordered.length - 1]!.entryIndex;
    const { timelines, completeThrough } = await this.entries.timelines(first, last, limit);
    for (const r of ordered) {
      if (r.entryIndex > completeThrough) break;
      const history = timelines.get(r.entryIndex);
      // A repair with no record at all stays without one: history is append-only and indexes are never reused.
      const summarized = { finishedAt: r.finishedAt, status: r.status, summary: history === undefined ? null : historySummaryOf(history, r.finishedAt) };
      read.set(r.entryIndex, summarized);
      this.summaries.set(r.entryIndex, summarized);
    }
    this.dropOldest();
    return read;
  }

  /** Past the bound, the summaries of the lowest entry indexes (the repairs the store prunes first) go. */
  private dropOldest(): void {
    const excess = this.summaries.size - this.bound;
    if (excess <= 0) return;
    const oldest = [...this.summaries.keys()].sort((a, b) => a - b).slice(0, excess);
    for (const index of oldest) this.summaries.delete(index);
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
