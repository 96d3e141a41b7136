import type { RepairEntry, UnindexedRepairEntry } from "../../domain/queue/repair-entry.js";
import type { RepairHistoryRecord } from "../../domain/queue/repair-history.js";
import { timelinesOf, type IndexedTimelinePoint, type RepairTimelines } from "../../domain/stats/repair-timeline.js";
import type { EntryWrite, NewEntryWrite, RepairChange, RepairEntryPort } from "../store-port.js";
import { readOrLog, storedRecord, UndecodableValueError } from "./store-values.js";
import { decodeHistory, type DecodedHistory } from "./history-value.js";
import { CorePort } from "./core-port.js";
import type { QueuePlan } from "./queue-plan.js";

const TIMELINE_PAGE = 1_000;

/**
 * The repair queue: entries read from the mirror, history from the store, and every change one transaction that
 * compares the queue head, so a decision taken on a stale queue never commits.
 */
export class CoreEntryPort extends CorePort implements RepairEntryPort {
  get(index: number): RepairEntry | null {
    return this.mirror.entry(index);
  }

  list(): RepairEntry[] {
    return [...this.mirror.entryList()];
  }

  async history(index: number): Promise<RepairHistoryRecord[]> {
    const response = await this.driver.range(`reading the history of repair entry ${index}`, this.keys.historyOf(index));
    // A record another process wrote that cannot be read is left out and logged: the rest of the audit trail stays readable.
    return response.kvs.flatMap((kv) => {
      const decoded = readOrLog(this.log, "a stored history record cannot be read; it is left out of the history", kv.key, () => this.decodeHistory(kv));
      return decoded === null ? [] : [storedRecord(decoded.record)];
    });
  }

  /** One key range read in pages, so no answer grows past gRPC's message limit. */
  async timelines(firstIndex: number, lastIndex: number, limit: number): Promise<RepairTimelines> {
    const end = this.keys.historyOf(lastIndex).end;
    let start = this.keys.historyOf(firstIndex).start;
    const points: IndexedTimelinePoint[] = [];
    while (points.length < limit) {
      const page = Math.min(TIMELINE_PAGE, limit - points.length);
      const response = await this.driver.range(`reading the histories of repair entries ${firstIndex} to ${lastIndex}`, { start, end }, { limit: page });
      for (const kv of response.kvs) {
        const decoded = readOrLog(this.log, "a stored history record cannot be read; it is left out of the statistics", kv.key, () => this.decodeHistory(kv));
        if (decoded === null) continue;
        const { entryIndex, time, status, step, stepStatus } = decoded.record;
        points.push({ entryIndex, time, status, step, stepStatus });
      }
      if (!response.more || response.kvs.length === 0) return timelinesOf(points, lastIndex, false);
      start = `${response.kvs[response.kvs.length - 1]!.key}\0`;
      // A turn of the event loop between pages: SQLite answers at once, and decoding 100,000 records in one go held
      // /health and every other request for seconds.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return timelinesOf(points, lastIndex, true);
  }

  private decodeHistory(kv: { readonly key: string; readonly value: Buffer }): DecodedHistory {
    const parsed = this.keys.parse(kv.key);
    if (parsed.kind !== "history") throw new UndecodableValueError(`store key ${kv.key} is under the history but is not a history record's key`);
    return decodeHistory(kv.key, parsed.index, parsed.sequence, kv.value);
  }

  add(entry: UnindexedRepairEntry, reason: string, now: number, actor: string): Promise<RepairChange> {
    return this.writer.write("adding a repair entry", (writeId) => {
      const plan = this.queuePlan();
      return plan.plan(writeId, plan.add(entry, reason, now, actor));
    });
  }

  addAll(pick: (entries: readonly RepairEntry[]) => readonly NewEntryWrite[], now: number, actor: string): Promise<RepairChange[]> {
    return this.inParts(
      "adding repair entries",
      () => pick(this.mirror.entryList()),
      (queue, p) => queue.add(p.entry, p.reason, now, actor),
    );
  }

  change(index: number, decide: (current: RepairEntry | null) => readonly EntryWrite[] | null, now: number, actor: string): Promise<RepairChange[]> {
    return this.writer.write(`changing repair entry ${index}`, (writeId) => {
      const writes = decide(this.mirror.entry(index));
      if (writes === null || writes.length === 0) return { none: [] };
      const plan = this.queuePlan();
      for (const w of writes) {
        if (w.entry.index !== index) throw new Error(`a change of repair entry ${index} cannot write entry ${w.entry.index}`);
        plan.change(w.entry, w.kind, w.reason, w.detail ?? null, now, actor);
      }
      return plan.plan(writeId, plan.changes);
    });
  }

  dequeue(index: number, decide: (current: RepairEntry) => string | null, now: number, actor: string): Promise<RepairChange | null> {
    return this.writer.write(`dequeuing repair entry ${index}`, (writeId) => {
      const current = this.mirror.entry(index);
      const reason = current === null ? null : decide(current);
      if (reason === null) return { none: null };
      const plan = this.queuePlan();
      return plan.plan(writeId, plan.dequeue(index, reason, now, actor));
    });
  }

  requestDelete(select: (entry: RepairEntry) => boolean, reason: string, now: number, actor: string): Promise<RepairChange[]> {
    const pick = (): RepairEntry[] => this.mirror.entryList().filter((e) => !e.deleted && select(e));
    return this.inParts("marking repair entries for deletion", pick, (queue, e) =>
      queue.change({ ...e, deleted: true }, "delete-requested", reason, null, now, actor),
    );
  }

  resetBackoff(reason: string, now: number, actor: string): Promise<RepairChange[]> {
    const pick = (): RepairEntry[] => this.mirror.entryList().filter((e) => e.drainBackoffCount !== 0 || e.drainBackoffExpire !== null);
    return this.inParts("resetting drain back-offs", pick, (queue, e) =>
      queue.change({ ...e, drainBackoffCount: 0, drainBackoffExpire: null }, "backoff-reset", reason, null, now, actor),
    );
  }

  /** Writes every item `pick` returns (`write` adds one to a queue write), in as many writes as the driver's limits need. */
  private inParts<T>(what: string, pick: () => readonly T[], write: (queue: QueuePlan, item: T) => void): Promise<RepairChange[]> {
    return this.writer.inParts(what, pick, (items, writeId) => {
      const queue = this.queuePlan();
      for (const item of items) write(queue, item);
      return queue.plan(writeId, queue.changes);
    });
  }
}
