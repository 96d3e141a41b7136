import { finishedSince, type FinishedRepair } from "../../domain/queue/finished-repair.js";
import type { RepairHistorySummary } from "../../domain/stats/repair-history-summary.js";
import type { FinishedRepairPort } from "../store-port.js";
import type { StoreKeys } from "./store-keys.js";
import type { StoreMirror } from "./store-mirror.js";
import { largestFitting } from "./write-limits.js";
import { encodeValue } from "./store-values.js";
import type { StoreWriter, NoWrite, WritePlan } from "./store-writer.js";

type Summarized = { readonly sequence: number; readonly summary: RepairHistorySummary | null };

/** Well inside etcd's default limits (the writer splits further). */
const SUMMARIES_PER_WRITE = 100;

/** The finished repairs, served from the mirror (QueuePlan writes them with the change that ended the repair). */
export class CoreFinishedPort implements FinishedRepairPort {
  constructor(
    private readonly keys: StoreKeys,
    private readonly mirror: StoreMirror,
    private readonly writer: StoreWriter,
  ) {}

  list(since: number | null = null): FinishedRepair[] {
    return finishedSince(this.mirror.finished.list(), since);
  }

  kept(): readonly FinishedRepair[] {
    return this.mirror.finished.list();
  }

  ofEntry(index: number): FinishedRepair | undefined {
    return this.mirror.finished.ofEntry(index);
  }

  summaryOf(sequence: number): RepairHistorySummary | null | undefined {
    return this.mirror.finished.summaryOf(sequence);
  }

  /**
   * Each write compares the revisions of the records it rewrites, so one pruned or summarized meanwhile is left out.
   * A turn of the event loop between writes: on SQLite a backfill's writes in one go held /health.
   */
  async storeSummaries(summaries: readonly Summarized[]): Promise<number> {
    let stored = 0;
    for (;;) {
      const n = await this.writer.write("storing repair history summaries", (): WritePlan<number> | NoWrite<number> => {
        const wanted = summaries
          .filter((s) => this.mirror.finished.get(s.sequence) !== undefined && this.mirror.finished.summaryOf(s.sequence) === undefined)
          .slice(0, SUMMARIES_PER_WRITE);
        if (wanted.length === 0) return { none: 0 };
        const { plan, taken } = largestFitting(
          wanted.length,
          wanted.length,
          (k) => this.plan(wanted.slice(0, k)),
          (p) => this.writer.fits(p),
        );
        return { ...plan, result: taken };
      });
      if (n === 0) return stored;
      stored += n;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private plan(wanted: readonly Summarized[]): Omit<WritePlan<unknown>, "result"> {
    const puts = wanted.map(({ sequence, summary }) => ({
      key: this.keys.finished(sequence),
      value: encodeValue({ finished: this.mirror.finished.get(sequence), summary }),
    }));
    return {
      compares: wanted.map(({ sequence }) => ({ key: this.keys.finished(sequence), modRevision: this.mirror.modRevision(this.keys.finished(sequence)) })),
      puts,
      // No key here carries a write id: after a lost answer the records are decided again and found summarized.
      stamp: puts[0]!.key,
    };
  }
}
