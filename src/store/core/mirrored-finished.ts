import type { FinishedRepair } from "../../domain/queue/finished-repair.js";
import type { RepairHistorySummary } from "../../domain/stats/repair-history-summary.js";
import { lowerBound } from "../../domain/shared/sorted-search.js";

/** The finished-repair records the mirror holds, by sequence and by entry index, with their stored summaries. */
export class MirroredFinished {
  private readonly bySequence = new Map<number, FinishedRepair>();
  private readonly perIndex = new Map<number, number[]>();
  private readonly summaries = new Map<number, RepairHistorySummary | null>();
  /** In sequence order, kept so as each changes: every queue write asks for the oldest, and sorting 10,000 for it is waste. */
  private readonly order: FinishedRepair[] = [];
  private sorted: readonly FinishedRepair[] | null = null;

  /** `keep`: how many records writes keep. */
  constructor(readonly keep: number) {}

  list(): readonly FinishedRepair[] {
    this.sorted ??= Object.freeze([...this.order]);
    return this.sorted;
  }

  get size(): number {
    return this.order.length;
  }

  /** The sequence of the `n`th oldest record (1: the oldest); undefined when fewer are kept. */
  oldestSequence(n: number): number | undefined {
    return this.order[n - 1]?.sequence;
  }

  ofEntry(index: number): FinishedRepair | undefined {
    const sequences = this.perIndex.get(index);
    return sequences === undefined ? undefined : this.bySequence.get(Math.max(...sequences));
  }

  summaryOf(sequence: number): RepairHistorySummary | null | undefined {
    return this.summaries.get(sequence);
  }

  get(sequence: number): FinishedRepair | undefined {
    return this.bySequence.get(sequence);
  }

  /** Keeps `record` (frozen) under its sequence with its stored summary (undefined: none), replacing what was there. */
  set(record: FinishedRepair, summary?: RepairHistorySummary | null): void {
    const old = this.bySequence.get(record.sequence);
    // Rewritten in place (a summary stored with it): taking it out and putting it back moved 10,000 records, 10,000 times.
    if (old !== undefined && old.entryIndex === record.entryIndex) this.order[this.positionOf(record.sequence)] = record;
    else {
      this.delete(record.sequence);
      this.order.splice(this.positionOf(record.sequence), 0, record);
      this.perIndex.set(record.entryIndex, [...(this.perIndex.get(record.entryIndex) ?? []), record.sequence]);
    }
    this.bySequence.set(record.sequence, record);
    if (summary === undefined) this.summaries.delete(record.sequence);
    else this.summaries.set(record.sequence, summary === null ? null : frozenSummary(summary));
    this.sorted = null;
  }

  delete(sequence: number): void {
    const old = this.bySequence.get(sequence);
    if (old === undefined) return;
    this.bySequence.delete(sequence);
    this.order.splice(this.positionOf(sequence), 1);
    this.summaries.delete(sequence);
    const left = (this.perIndex.get(old.entryIndex) ?? []).filter((s) => s !== sequence);
    if (left.length > 0) this.perIndex.set(old.entryIndex, left);
    else this.perIndex.delete(old.entryIndex);
    this.sorted = null;
  }

  clear(): void {
    this.bySequence.clear();
    this.perIndex.clear();
    this.summaries.clear();
    this.order.length = 0;
    this.sorted = null;
  }

  /** Where `sequence` is or would go in {@link order}; records come newest last, so that is looked at first. */
  private positionOf(sequence: number): number {
    const last = this.order.at(-1);
    if (last === undefined || last.sequence < sequence) return this.order.length;
    return lowerBound(0, this.order.length, (i) => this.order[i]!.sequence < sequence);
  }
}

// A literal, not a spread: V8 gives every frozen spread copy a hidden class of its own (10,000 kept summaries were
// 10,000 classes, about 3 MB).
function frozenSummary(s: RepairHistorySummary): RepairHistorySummary {
  return Object.freeze({ drainingMs: s.drainingMs, stepsNeeded: s.stepsNeeded, finalStep: s.finalStep });
}
