import { finishedRepairOf, type FinishedRepair } from "../domain/queue/finished-repair.js";
import type { KintsugiStore, StoreCommit } from "../store/store-port.js";
import { summarizeHistories, type RepairSummaries } from "./repair-summaries.js";

/** How the keeper summarizes a batch: the replica's RepairSummaries, shared with its queries, or a read of its own. */
export type HistorySummarizer = Pick<RepairSummaries, "summarize">;

/** The repairs one pass summarizes at a time, and the history records it reads at most: no read holds the process long. */
const BATCH = 500;
const READ_LIMIT = 10_000;

/** The entries whose repair `commit` ended: each of their changes leaves a finished-repair record (the store writes it with the change). */
function endedBy(commit: StoreCommit): number[] {
  return commit.entries.filter((change) => finishedRepairOf(change, false) !== null).map((change) => change.entry.index);
}

/**
 * The leader's keeper of repair summaries: whenever repairs end, it reads their histories (one bounded range read per
 * batch) and stores each summary with the repair's finished record, so every replica answers statistics from what
 * it already holds, and none reads histories at start. The first pass of a term looks at every kept record (after an
 * upgrade: the records an older kintsugi kept, a batch at a time with a turn of the event loop between); after it,
 * only the repairs that commits ended are looked at: after a commit that ends none (an add, a step, a storm of them)
 * there is nothing to look at, and after one that does, its own records, not the 10,000 kept. A failed read or write
 * ends the pass (logged); the next commit that changes entries starts another, which looks again at what is left.
 */
export class RepairSummaryKeeper {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private stopListening: (() => void) | null = null;
  /** Whether the next pass looks at every kept record (the term's first), not only the repairs commits ended. */
  private scanAll = true;
  /** The entry indexes of repairs that ended and may still want a summary (at most as many as records are kept). */
  private readonly ended = new Set<number>();
  /**
   * Records whose history does not fit one bounded read (a repair with more than READ_LIMIT records), by sequence
   * with their entry index: given up on, so that no commit starts the same 10,000-record read again; a query
   * summarizes them with its own, larger bound. Only those still kept are remembered.
   */
  private readonly tooLong = new Map<number, number>();

  constructor(
    private readonly store: Pick<KintsugiStore, "entries" | "finished" | "onCommit">,
    private readonly onError: (err: unknown) => void,
    private readonly summarizer: HistorySummarizer = { summarize: (records, limit) => summarizeHistories(store.entries, records, limit) },
  ) {}

  /** Summarizes what is missing now, and again after every commit that changes entries. */
  start(): void {
    this.stopListening = this.store.onCommit((commit) => {
      if (commit.entries.length === 0) return;
      for (const index of endedBy(commit)) this.ended.add(index);
      this.request();
    });
    this.request();
  }

  /** Stops listening and waits for the pass under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopListening?.();
    await this.running;
  }

  /** Resolves when no pass is running or asked for (tests). */
  async idle(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  private request(): void {
    if (this.stopped) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    this.running = this.pass()
      .catch(this.onError)
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.request();
        }
      });
  }

  private async pass(): Promise<void> {
    const { finished } = this.store;
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      if (this.stopped) return;
      const missing = this.missing();
      if (missing.length === 0) return;
      // Oldest first: a range read over neighbouring indexes, each batch past the last.
      const batch = missing.sort((a, b) => a.entryIndex - b.entryIndex).slice(0, BATCH);
      const read = await this.summarizer.summarize(batch, READ_LIMIT);
      const summaries = batch.flatMap((r) => {
        const summary = read.get(r.entryIndex);
        return summary === undefined ? [] : [{ sequence: r.sequence, summary }];
      });
      if (summaries.length === 0) {
        // Not even the first repair's history fit the read: give it up and go on with the next.
        this.tooLong.set(batch[0]!.sequence, batch[0]!.entryIndex);
        continue;
      }
      if ((await finished.storeSummaries(summaries)) === 0) return;
    }
  }

  /** The kept records without a summary among those to look at (every kept one, or the ended ones); forgets the others. */
  private missing(): FinishedRepair[] {
    const { finished } = this.store;
    const kept = (index: number) => finished.ofEntry(index);
    for (const [sequence, index] of this.tooLong) if (kept(index)?.sequence !== sequence) this.tooLong.delete(sequence);
    if (this.scanAll) {
      this.scanAll = false;
      for (const r of finished.list()) this.ended.add(r.entryIndex);
    }
    const missing: FinishedRepair[] = [];
    for (const index of this.ended) {
      const record = kept(index);
      if (record === undefined || finished.summaryOf(record.sequence) !== undefined || this.tooLong.has(record.sequence)) this.ended.delete(index);
      else missing.push(record);
    }
    return missing;
  }
}
