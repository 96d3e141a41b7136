import { RECORD_AREAS, type RecordArea, type RecordKey } from "./store-keys.js";
import { lowerBound } from "../../domain/shared/sorted-search.js";

/** The area code of a slot whose record was deleted (its sequence stays, so the slots stay ordered). */
const GONE = 255;
const FIRST_CAPACITY = 1024;

/**
 * The replay records as the mirror knows them: by key only (kind, sequence, time and stored bytes are all in the
 * key), so the byte bound is kept without reading a value. A year of polls is half a million records: they are kept
 * in columns (typed arrays, 25 bytes a record) ordered by sequence, not as objects (about 250 bytes a record, 130 MB
 * of heap). Records arrive newest last and leave oldest first; the initial read brings each kind in turn, which is
 * sorted once, when first asked for.
 */
export class MirroredRecords {
  private sequences = new Float64Array(FIRST_CAPACITY);
  private times = new Float64Array(FIRST_CAPACITY);
  private byteCounts = new Float64Array(FIRST_CAPACITY);
  private areas = new Uint8Array(FIRST_CAPACITY);
  /** The slots in use are [start, end); some may be GONE. */
  private start = 0;
  private end = 0;
  private live = 0;
  private total = 0;
  /** Whether the slots in use are ordered by sequence, each sequence once. */
  private ordered = true;

  put(record: RecordKey): void {
    const area = RECORD_AREAS.indexOf(record.area);
    if (area < 0) return;
    const last = this.end - 1;
    if (this.ordered && last >= this.start && record.sequence <= this.sequences[last]!) {
      const at = this.find(record.sequence);
      if (at >= 0) {
        if (this.areas[at] !== GONE) this.forget(at);
        this.fill(at, area, record);
        return;
      }
      // Not newer than the newest: sorted when first asked for.
      this.ordered = false;
    }
    if (this.end === this.sequences.length) this.makeRoom();
    this.fill(this.end++, area, record);
  }

  delete(sequence: number): void {
    this.order();
    const at = this.find(sequence);
    if (at < 0 || this.areas[at] === GONE) return;
    this.forget(at);
    while (this.start < this.end && this.areas[this.start] === GONE) this.start++;
    if (this.start === this.end) this.start = this.end = 0;
    else if (this.end - this.start - this.live > Math.max(FIRST_CAPACITY, this.live)) this.compact();
  }

  size(): { readonly records: number; readonly bytes: number } {
    this.order();
    return { records: this.live, bytes: this.total };
  }

  newest(): number {
    this.order();
    for (let i = this.end - 1; i >= this.start; i--) if (this.areas[i] !== GONE) return this.sequences[i]!;
    return 0;
  }

  since(area: RecordArea, since: number, limit: number): RecordKey[] {
    this.order();
    const code = RECORD_AREAS.indexOf(area);
    const found: RecordKey[] = [];
    for (let i = this.start; i < this.end && found.length < limit; i++) {
      if (this.areas[i] === code && this.times[i]! >= since) found.push(this.recordAt(i));
    }
    return found;
  }

  /**
   * What a write adding `adding` bytes drops: the oldest records while older than `cutoff` or the total is past
   * `maxBytes`, as the highest sequence dropped of each kind (absent: none of that kind). They are a prefix of the
   * sequence, so one delete range per kind removes them however many they are.
   */
  prune(adding: number, cutoff: number, maxBytes: number): Partial<Record<RecordArea, number>> {
    this.order();
    const below: Partial<Record<RecordArea, number>> = {};
    let bytes = 0;
    for (let i = this.start; i < this.end; i++) {
      const area = this.areas[i]!;
      if (area === GONE) continue;
      if (this.times[i]! >= cutoff && this.total - bytes + adding <= maxBytes) break;
      below[RECORD_AREAS[area]!] = this.sequences[i]!;
      bytes += this.byteCounts[i]!;
    }
    return below;
  }

  private recordAt(i: number): RecordKey {
    return { area: RECORD_AREAS[this.areas[i]!]!, sequence: this.sequences[i]!, time: this.times[i]!, bytes: this.byteCounts[i]! };
  }

  private fill(i: number, area: number, record: RecordKey): void {
    this.sequences[i] = record.sequence;
    this.times[i] = record.time;
    this.byteCounts[i] = record.bytes;
    this.areas[i] = area;
    this.live++;
    this.total += record.bytes;
  }

  private forget(i: number): void {
    this.areas[i] = GONE;
    this.live--;
    this.total -= this.byteCounts[i]!;
  }

  /** The slot of `sequence` among the ordered slots in use (GONE or not), or -1. */
  private find(sequence: number): number {
    const at = lowerBound(this.start, this.end, (i) => this.sequences[i]! < sequence);
    return at < this.end && this.sequences[at] === sequence ? at : -1;
  }

  /** Room for one more at the end: the live slots moved to the front, or columns half as long again. */
  private makeRoom(): void {
    this.compact(this.live * 2 <= this.sequences.length ? this.sequences.length : Math.ceil(this.sequences.length * 1.5));
  }

  private liveSlots(): number[] {
    const slots: number[] = [];
    for (let i = this.start; i < this.end; i++) if (this.areas[i] !== GONE) slots.push(i);
    return slots;
  }

  /** `slots` moved, in this order, to the front of columns of `capacity`. */
  private compact(capacity = this.sequences.length, slots = this.liveSlots()): void {
    const columns = [new Float64Array(capacity), new Float64Array(capacity), new Float64Array(capacity), new Uint8Array(capacity)] as const;
    let total = 0;
    slots.forEach((slot, n) => {
      columns[0][n] = this.sequences[slot]!;
      columns[1][n] = this.times[slot]!;
      columns[2][n] = this.byteCounts[slot]!;
      columns[3][n] = this.areas[slot]!;
      total += this.byteCounts[slot]!;
    });
    [this.sequences, this.times, this.byteCounts, this.areas] = columns;
    this.start = 0;
    this.end = this.live = slots.length;
    this.total = total;
  }

  /** Orders the slots by sequence, once after out-of-order puts; of two puts of one sequence the later one stays. */
  private order(): void {
    if (this.ordered) return;
    const slots = this.liveSlots().sort((a, b) => this.sequences[a]! - this.sequences[b]! || a - b);
    const kept = slots.filter((slot, k) => k + 1 === slots.length || this.sequences[slots[k + 1]!] !== this.sequences[slot]);
    this.compact(Math.max(FIRST_CAPACITY, Math.ceil(kept.length * 1.25)), kept);
    this.ordered = true;
  }
}
