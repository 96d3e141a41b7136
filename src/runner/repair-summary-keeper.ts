import type { FinishedRepair } from "../domain/queue/finished-repair.js";
import type { KintsugiStore } from "../store/store-port.js";
import { summarizeHistories, type RepairSummaries } from "./repair-summaries.js";

/** How the keeper summarizes a batch: the replica's RepairSummaries, shared with its queries, or a read of its own. */
export type HistorySummarizer = Pick<RepairSummaries, "summarize">;

/** The repairs one pass summarizes at a time, and the history records it reads at most: no read holds the process long. */
const BATCH = 500;
const READ_LIMIT = 10_000;

/**
 * The leader's keeper of repair summaries: whenever repairs end, it reads their histories (one bounded range read per
 * batch) and stores each summary with the repair's finished record, so every replica answers statistics from what
 * it already holds, and none reads histories at start. The first pass after an upgrade summarizes the records an
 * older kintsugi kept, a batch at a time with a turn of the event loop between. A failed read or write ends the pass
 * (logged); the next commit starts another.
 */
export class RepairSummaryKeeper {
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private stopListening: (() => void) | null = null;
  /**
   * Records whose history does not fit one bounded read (a repair with more than READ_LIMIT records): given up on,
   * so that no commit starts the same 10,000-record read again; a query summarizes them with its own, larger bound.
   * At most as many as the store keeps finished records.
   */
  private readonly tooLong = new Set<number>();
  /**
   * The store's kept records (their version: see FinishedRepairPort.kept) when a pass last found none to summarize:
   * a commit that ended no repair and stored no summary leaves the same version, and the pass looks at no record.
   * With 10,000 kept, listing them and asking each for its summary on every commit of a working queue (every add,
   * every step) was a few milliseconds a commit, beside everything else the event loop had to do.
   */
  private summarizedAll: readonly FinishedRepair[] | null = null;

  constructor(
    private readonly store: Pick<KintsugiStore, "entries" | "finished" | "onCommit">,
    private readonly onError: (err: unknown) => void,
    private readonly summarizer: HistorySummarizer = { summarize: (records, limit) => summarizeHistories(store.entries, records, limit) },
  ) {}

  /** Summarizes what is missing now, and again after every commit that changes entries. */
  start(): void {
    this.stopListening = this.store.onCommit((commit) => {
      if (commit.entries.length > 0) this.request();
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
      const listed = finished.kept();
      if (listed === this.summarizedAll) return;
      const kept = new Set(listed.map((r) => r.sequence));
      for (const sequence of this.tooLong) if (!kept.has(sequence)) this.tooLong.delete(sequence);
      const missing = listed.filter((r) => finished.summaryOf(r.sequence) === undefined && !this.tooLong.has(r.sequence));
      if (missing.length === 0) {
        this.summarizedAll = listed;
        return;
      }
      // Oldest first: a range read over neighbouring indexes, each batch past the last.
      const batch = missing.sort((a, b) => a.entryIndex - b.entryIndex).slice(0, BATCH);
      const read = await this.summarizer.summarize(batch, READ_LIMIT);
      const summaries = batch.flatMap((r) => {
        const summary = read.get(r.entryIndex);
        return summary === undefined ? [] : [{ sequence: r.sequence, summary }];
      });
      if (summaries.length === 0) {
        // Not even the first repair's history fit the read: give it up and go on with the next.
        this.tooLong.add(batch[0]!.sequence);
        continue;
      }
      if ((await finished.storeSummaries(summaries)) === 0) return;
    }
  }
}
