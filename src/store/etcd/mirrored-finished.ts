import type { FinishedRepair } from "../../domain/finished-repair.js";

/**
 * The finished-repair records the etcd mirror holds, by sequence, with how many each entry index has (one, unless
 * a pruned record's entry was dequeued later), so a write can tell whether an entry already has its record.
 */
export class MirroredFinished {
  private readonly bySequence = new Map<number, FinishedRepair>();
  private readonly perIndex = new Map<number, number>();
  private sorted: readonly FinishedRepair[] | null = null;

  /** `keep`: how many records writes keep (the oldest beyond it are deleted by the write that adds one). */
  constructor(readonly keep: number) {}

  /** The records ordered by sequence (shared, frozen). */
  list(): readonly FinishedRepair[] {
    this.sorted ??= Object.freeze([...this.bySequence.values()].sort((a, b) => a.sequence - b.sequence));
    return this.sorted;
  }

  /** Whether a record of entry `index` is kept. */
  has(index: number): boolean {
    return this.perIndex.has(index);
  }

  /** Keeps `record` (frozen) under its sequence, replacing what was there. */
  set(record: FinishedRepair): void {
    this.delete(record.sequence);
    this.bySequence.set(record.sequence, record);
    this.perIndex.set(record.entryIndex, (this.perIndex.get(record.entryIndex) ?? 0) + 1);
    this.sorted = null;
  }

  /** Forgets the record under `sequence`, if any. */
  delete(sequence: number): void {
    const old = this.bySequence.get(sequence);
    if (old === undefined) return;
    this.bySequence.delete(sequence);
    const left = (this.perIndex.get(old.entryIndex) ?? 1) - 1;
    if (left > 0) this.perIndex.set(old.entryIndex, left);
    else this.perIndex.delete(old.entryIndex);
    this.sorted = null;
  }

  clear(): void {
    this.bySequence.clear();
    this.perIndex.clear();
    this.sorted = null;
  }
}
