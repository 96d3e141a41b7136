import type { RepairChange } from "../../src/store/store-port.js";

/** An entry of kintsugi's queue as the demo follows it. */
export interface MirroredEntry {
  readonly index: number;
  readonly address: string;
  readonly serial: string | null;
  readonly finished: boolean;
  /** Deletion was requested: kintsugi dequeues it at its next pass. */
  readonly deleted: boolean;
}

/** A repair that just finished, as {@link QueueMirror.apply} reports it. */
export interface FinishedRepair {
  readonly index: number;
  readonly address: string;
  readonly succeeded: boolean;
}

/**
 * kintsugi's repair queue as its committed changes tell it (the onCommitted hook): which addresses have an entry,
 * finished or not, until it is dequeued. An address with any entry is what kintsugi's auto-repair skips as
 * "recently repaired".
 */
export class QueueMirror {
  private readonly entries = new Map<number, MirroredEntry>();

  /** Follows one commit; returns the repairs it finished. */
  apply(changes: readonly RepairChange[]): FinishedRepair[] {
    const finished: FinishedRepair[] = [];
    for (const { entry, previous, record } of changes) {
      if (record.kind === "dequeued") {
        this.entries.delete(entry.index);
        continue;
      }
      const done = entry.status === "succeeded" || entry.status === "failed";
      this.entries.set(entry.index, { index: entry.index, address: entry.address, serial: entry.serial, finished: done, deleted: entry.deleted });
      if (done && previous?.status !== entry.status) finished.push({ index: entry.index, address: entry.address, succeeded: entry.status === "succeeded" });
    }
    return finished;
  }

  /** The entries of an address, oldest first. */
  of(address: string): MirroredEntry[] {
    return [...this.entries.values()].filter((e) => e.address === address).sort((a, b) => a.index - b.index);
  }

  /** The address of the entry with this index, while it is in the queue. */
  addressOf(index: number): string | undefined {
    return this.entries.get(index)?.address;
  }

  has(address: string): boolean {
    return this.of(address).length > 0;
  }

  /** Whether the address's entries are all finished and none is being deleted: it stays "recently repaired" a while. */
  lingers(address: string): boolean {
    const entries = this.of(address);
    return entries.length > 0 && entries.every((e) => e.finished && !e.deleted);
  }

  get size(): number {
    return this.entries.size;
  }
}
