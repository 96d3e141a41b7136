import type { RecordArea, RecordKey } from "./store-keys.js";

/** What a write drops of the kept replay records. */
export interface RecordsPruning {
  /** The highest sequence dropped of each kind (absent: none of that kind). */
  readonly below: Partial<Record<RecordArea, number>>;
  readonly records: number;
  readonly bytes: number;
}

/**
 * The replay records as the mirror knows them: by key only (kind, sequence, time, stored bytes: all in the key), never
 * their values, which are read from etcd on demand. This is what keeps the byte bound on etcd without reading a value:
 * the running total of the kept records' bytes is the sum of their keys' sizes, kept as keys come and go (the initial
 * read, then the watch), and pruning drops the oldest by sequence from it.
 */
export class MirroredRecords {
  private readonly bySequence = new Map<number, { readonly key: string; readonly record: RecordKey }>();
  /** The records by sequence, kept in order as records come newest last (every write appends one); null: to sort again. */
  private sorted: Array<{ readonly key: string; readonly record: RecordKey }> | null = null;
  private total = 0;

  clear(): void {
    this.bySequence.clear();
    this.sorted = null;
    this.total = 0;
  }

  put(key: string, record: RecordKey): void {
    this.delete(record.sequence);
    const kept = { key, record };
    this.bySequence.set(record.sequence, kept);
    this.total += record.bytes;
    const last = this.sorted?.at(-1);
    if (this.sorted !== null && (last === undefined || last.record.sequence < record.sequence)) this.sorted.push(kept);
    else this.sorted = null;
  }

  delete(sequence: number): void {
    const kept = this.bySequence.get(sequence);
    if (kept === undefined) return;
    this.bySequence.delete(sequence);
    this.total -= kept.record.bytes;
    // Pruning drops the oldest first.
    if (this.sorted?.[0] === kept) this.sorted.shift();
    else this.sorted = null;
  }

  /** How many records are kept and the bytes their values take. */
  size(): { readonly records: number; readonly bytes: number } {
    return { records: this.bySequence.size, bytes: this.total };
  }

  /** The newest sequence kept (0: none). */
  newest(): number {
    return this.list().at(-1)?.record.sequence ?? 0;
  }

  /** The kept records' keys, oldest first. */
  list(): ReadonlyArray<{ readonly key: string; readonly record: RecordKey }> {
    this.sorted ??= [...this.bySequence.values()].sort((a, b) => a.record.sequence - b.record.sequence);
    return this.sorted;
  }

  /** The keys of `area` at or after `since` (epoch ms), oldest first, at most `limit`. */
  since(area: RecordArea, since: number, limit: number): Array<{ readonly key: string; readonly record: RecordKey }> {
    const found: Array<{ readonly key: string; readonly record: RecordKey }> = [];
    for (const kept of this.list()) {
      if (found.length >= limit) break;
      if (kept.record.area === area && kept.record.time >= since) found.push(kept);
    }
    return found;
  }

  /**
   * What a write adding `adding` bytes at `now` drops: the oldest records, by sequence, while they are older than
   * `cutoff` or the total with the new one is past `maxBytes`. Records are dropped as a prefix of the sequence, so
   * one delete range per kind removes them however many they are (a transaction's operations stay few).
   */
  prune(adding: number, cutoff: number, maxBytes: number): RecordsPruning {
    const below: Partial<Record<RecordArea, number>> = {};
    let records = 0;
    let bytes = 0;
    for (const { record } of this.list()) {
      if (record.time >= cutoff && this.total - bytes + adding <= maxBytes) break;
      below[record.area] = record.sequence;
      records++;
      bytes += record.bytes;
    }
    return { below, records, bytes };
  }
}
