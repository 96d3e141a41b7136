import { finishedRepairOf } from "../../domain/queue/finished-repair.js";
import type { RepairEntry, UnindexedRepairEntry } from "../../domain/queue/repair-entry.js";
import { historyRecordFor, type RepairHistoryKind } from "../../domain/queue/repair-history.js";
import type { RepairChange } from "../store-port.js";
import type { StoreKeys } from "./store-keys.js";
import type { StoreMirror } from "./store-mirror.js";
import { deepFreeze, encodeValue, storedEntry, storedRecord } from "./store-values.js";
import { encodeHistory } from "./history-value.js";
import type { WritePlan } from "./store-writer.js";
import { keyRange, type KeyRange } from "../kv/kv-driver.js";

/**
 * The entry changes of one queue write, decided on the mirror: indexes and history sequences from the queue head
 * (compared and advanced, so two writers never take the same ones), one history record per change, and each entry
 * key written once, as it is after the last change (etcd refuses two operations on one key in a transaction).
 */
export class QueuePlan {
  readonly changes: RepairChange[] = [];
  private readonly head;
  private nextIndex: number;
  private nextSequence: number;
  private readonly entryKeys = new Map<number, RepairEntry | null>();
  private readonly historyPuts: Array<{ key: string; value: string }> = [];
  private readonly finishedPuts = new Map<number, { key: string; value: string }>();

  constructor(
    private readonly mirror: StoreMirror,
    private readonly keys: StoreKeys,
    private readonly replica: string | null = null,
  ) {
    this.head = mirror.queueHead;
    if (this.head === null && mirror.queueStarted) {
      throw new Error(
        `the queue head ${keys.queue} is missing while repair entries or their history exist; refusing to hand out indexes that may have been used`,
      );
    }
    if (this.head !== null && this.head.value === null)
      throw new Error(`the queue head ${keys.queue} cannot be read (see the log); refusing to write the queue`);
    this.nextIndex = Math.max(this.head?.value?.nextIndex ?? 1, mirror.highestIndex() + 1);
    this.nextSequence = this.head?.value?.nextSequence ?? 1;
  }

  /** The entry as this write leaves it so far (the mirror's before any change). */
  private current(index: number): RepairEntry | null {
    return this.entryKeys.has(index) ? (this.entryKeys.get(index) ?? null) : this.mirror.entry(index);
  }

  add(entry: UnindexedRepairEntry, reason: string, now: number, actor: string): RepairChange {
    const stored = storedEntry({ ...entry, index: this.nextIndex++ });
    return this.record(stored, null, "created", reason, null, now, actor, stored);
  }

  change(entry: RepairEntry, kind: RepairHistoryKind, reason: string, detail: string | null, now: number, actor: string): RepairChange {
    const previous = this.current(entry.index);
    if (previous === null) throw new Error(`repair entry ${entry.index} is not in the queue`);
    const stored = storedEntry(entry);
    return this.record(stored, previous, kind, reason, detail, now, actor, stored);
  }

  dequeue(index: number, reason: string, now: number, actor: string): RepairChange {
    const previous = this.current(index);
    if (previous === null) throw new Error(`repair entry ${index} is not in the queue`);
    return this.record(previous, previous, "dequeued", reason, null, now, actor, null);
  }

  get empty(): boolean {
    return this.changes.length === 0;
  }

  /** The transaction: the queue head compared, and advanced when entries change; `others` are other areas' writes. */
  plan<T>(writeId: string, result: T, others: ReadonlyArray<Omit<WritePlan<unknown>, "result">> = []): WritePlan<T> {
    const puts: Array<{ key: string; value: string }> = [];
    if (!this.empty) {
      for (const [index, entry] of this.entryKeys) {
        if (entry !== null) puts.push({ key: this.keys.entry(index), value: encodeValue({ entry }) });
      }
      puts.push(...this.historyPuts);
      puts.push(...this.finishedPuts.values());
      puts.push({ key: this.keys.queue, value: encodeValue({ w: writeId, nextIndex: this.nextIndex, nextSequence: this.nextSequence }) });
    }
    const removed = [...this.entryKeys].filter(([, e]) => e === null).map(([index]) => keyRange(this.keys.entry(index)));
    removed.push(...this.prunedFinished());
    return {
      compares: [{ key: this.keys.queue, modRevision: this.head?.modRevision ?? 0 }, ...others.flatMap((p) => p.compares)],
      puts: [...puts, ...others.flatMap((p) => p.puts)],
      deletes: [...removed, ...others.flatMap((p) => p.deletes ?? [])],
      stamp: this.empty && others[0] ? others[0].stamp : this.keys.queue,
      result,
    };
  }

  /** The oldest kept records beyond the newest `keep` once this write's are added, as one range. */
  private prunedFinished(): KeyRange[] {
    const kept = this.mirror.finished;
    const drop = kept.size + this.finishedPuts.size - kept.keep;
    if (drop <= 0 || kept.size === 0) return [];
    // Every record this write adds has a newer sequence than every kept one, so the range never covers them.
    const boundary = kept.oldestSequence(Math.min(drop, kept.size)) as number;
    return [{ start: this.keys.finished(0), end: this.keys.finished(boundary + 1) }];
  }

  private record(
    snapshot: RepairEntry,
    previous: RepairEntry | null,
    kind: RepairHistoryKind,
    reason: string,
    detail: string | null,
    now: number,
    actor: string,
    after: RepairEntry | null,
  ): RepairChange {
    const made = { ...historyRecordFor(snapshot, kind, reason, now, actor, detail), sequence: this.nextSequence++ };
    const record = storedRecord(this.replica === null ? made : { ...made, replica: this.replica });
    this.historyPuts.push({ key: this.keys.history(snapshot.index, record.sequence), value: encodeHistory(record, previous, snapshot) });
    this.entryKeys.set(snapshot.index, after);
    const change: RepairChange = deepFreeze({ entry: snapshot, previous, record });
    const finished = finishedRepairOf(change, this.mirror.finished.ofEntry(snapshot.index) !== undefined || this.finishedPuts.has(snapshot.index));
    if (finished !== null) this.finishedPuts.set(snapshot.index, { key: this.keys.finished(finished.sequence), value: encodeValue({ finished }) });
    this.changes.push(change);
    return change;
  }
}
