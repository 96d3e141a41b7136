import { finishedSince, type FinishedRepair } from "../../domain/queue/finished-repair.js";
import type { RepairHistorySummary } from "../../domain/stats/repair-history-summary.js";
import type { FinishedRepairPort } from "../store-port.js";
import { encodeValue } from "./store-values.js";
import { CorePort } from "./core-port.js";
import type { WritePlan } from "./store-writer.js";

type Summarized = { readonly sequence: number; readonly summary: RepairHistorySummary | null };

/** Well inside etcd's default limits; on SQLite, whose transactions have none, it bounds each write of a backfill. */
const SUMMARIES_PER_WRITE = 100;

/** The finished repairs, served from the mirror (QueuePlan writes them with the change that ended the repair). */
export class CoreFinishedPort extends CorePort implements FinishedRepairPort {
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

  /** Each write compares the revisions of the records it rewrites, so one pruned or summarized meanwhile is left out. */
  async storeSummaries(summaries: readonly Summarized[]): Promise<number> {
    const { finished } = this.mirror;
    const wanted = () => summaries.filter((s) => finished.get(s.sequence) !== undefined && finished.summaryOf(s.sequence) === undefined);
    return (await this.writer.inParts("storing repair history summaries", wanted, (items) => this.plan(items), SUMMARIES_PER_WRITE)).length;
  }

  private plan(wanted: readonly Summarized[]): WritePlan<readonly Summarized[]> {
    const puts = wanted.map(({ sequence, summary }) => ({
      key: this.keys.finished(sequence),
      value: encodeValue({ finished: this.mirror.finished.get(sequence), summary }),
    }));
    return {
      compares: wanted.map(({ sequence }) => ({ key: this.keys.finished(sequence), modRevision: this.mirror.modRevision(this.keys.finished(sequence)) })),
      puts,
      // No key here carries a write id: after a lost answer the records are decided again and found summarized.
      stamp: puts[0]!.key,
      result: wanted,
    };
  }
}
