import type { RepairEntry, UnindexedRepairEntry } from "../domain/repair-entry.js";
import { historyRecordFor, type RepairHistoryKind, type RepairHistoryRecord } from "../domain/repair-history.js";
import type { Db } from "./database.js";
import {
  entryFromRow,
  entryParams,
  historyFromRow,
  type RepairEntryRow,
  type RepairHistoryRow,
} from "./repair-entry-rows.js";
import { KeptRead } from "./kept-read.js";

/**
 * An entry after a committed change, the entry as it was just before it (null for a new entry), and the history
 * record that describes the change. `previous` lets readers tell transitions apart by state, not by reason text.
 */
export interface RepairChange {
  readonly entry: RepairEntry;
  readonly previous: RepairEntry | null;
  readonly record: RepairHistoryRecord;
}

/**
 * The repair entries and their append-only history. Every change writes the entry and its history record in one
 * synchronous transaction, so an entry never changes without a record of why. Indexes come from SQLite's
 * AUTOINCREMENT: monotonic and never reused, even after deletions and restarts.
 */
export class RepairEntryStore {
  private readonly insertEntry;
  private readonly updateEntry;
  private readonly deleteEntry;
  private readonly insertHistory;
  private readonly selectOne;
  private readonly selectAll;
  private readonly selectHistory;
  private readonly kept: KeptRead<readonly RepairEntry[]>;

  constructor(private readonly db: Db) {
    this.insertEntry = db.prepare(`INSERT INTO repair_entries (address, nodename, serial, machine_type, operation,
      status, step, step_status, deleted, last_transition_time, drain_backoff_count, drain_backoff_expire, created_at,
      source) VALUES (@address, @nodename, @serial, @machine_type, @operation, @status, @step, @step_status, @deleted,
      @last_transition_time, @drain_backoff_count, @drain_backoff_expire, @created_at, @source)`);
    this.updateEntry = db.prepare(`UPDATE repair_entries SET nodename = @nodename, status = @status, step = @step,
      step_status = @step_status, deleted = @deleted, last_transition_time = @last_transition_time,
      drain_backoff_count = @drain_backoff_count, drain_backoff_expire = @drain_backoff_expire WHERE idx = @idx`);
    this.deleteEntry = db.prepare("DELETE FROM repair_entries WHERE idx = ?");
    this.insertHistory = db.prepare(`INSERT INTO repair_history (entry_index, time, kind, reason, detail, status, step,
      step_status, deleted, actor) VALUES (@entryIndex, @time, @kind, @reason, @detail, @status, @step, @stepStatus, @deleted,
      @actor)`);
    this.selectOne = db.prepare("SELECT * FROM repair_entries WHERE idx = ?");
    this.selectAll = db.prepare("SELECT * FROM repair_entries ORDER BY idx");
    this.selectHistory = db.prepare("SELECT * FROM repair_history WHERE entry_index = ? ORDER BY seq");
    this.kept = new KeptRead(db, () => (this.selectAll.all() as RepairEntryRow[]).map(entryFromRow));
  }

  /** Appends an entry and its `created` record, made by `actor`; returns it with its new index. */
  add(entry: UnindexedRepairEntry, reason: string, now: number, actor: string): RepairChange {
    return this.db.transaction(() => {
      const { lastInsertRowid } = this.insertEntry.run(entryParams(entry));
      const stored = { ...entry, index: Number(lastInsertRowid) };
      return { entry: stored, previous: null, record: this.append(stored, "created", reason, now, actor, null) };
    })();
  }

  /**
   * Appends several entries in one transaction (all or none), each with its `created` record. Synchronous, so
   * a caller can decide on `list()` and add in the same tick without another change slipping in between.
   */
  addMany(entries: ReadonlyArray<{ entry: UnindexedRepairEntry; reason: string }>, now: number, actor: string): RepairChange[] {
    return this.db.transaction(() => entries.map(({ entry, reason }) => this.add(entry, reason, now, actor)))();
  }

  /** The entry with this index, or null when there is none (never was, or dequeued). */
  get(index: number): RepairEntry | null {
    const row = this.selectOne.get(index) as RepairEntryRow | undefined;
    return row ? entryFromRow(row) : null;
  }

  /**
   * Every entry in the queue, ordered by index, in a new array. Lists are what dashboards poll and every pass
   * reads, so the last read is kept (entries frozen) until the database changes; see {@link KeptRead}.
   */
  list(): RepairEntry[] {
    return [...this.kept.get()];
  }

  /** The history of one index, oldest first; it outlives the entry. */
  history(index: number): RepairHistoryRecord[] {
    return (this.selectHistory.all(index) as RepairHistoryRow[]).map(historyFromRow);
  }

  /**
   * Writes the changed fields of entries (nodename, status, step, step status, deleted, transition time, back-off)
   * with one history record each, made by `actor`, all in one transaction: either every change lands or none does.
   */
  update(changes: ReadonlyArray<{ entry: RepairEntry; kind: RepairHistoryKind; reason: string; detail?: string | null }>, now: number, actor: string): RepairChange[] {
    return this.db.transaction(() =>
      changes.map(({ entry, kind, reason, detail }) => {
        const previous = this.get(entry.index);
        if (previous === null || this.updateEntry.run(entryParams(entry)).changes !== 1) {
          throw new Error(`repair entry ${entry.index} is not in the queue`);
        }
        return { entry, previous, record: this.append(entry, kind, reason, now, actor, detail ?? null) };
      }),
    )();
  }

  /** Removes an entry from the queue, recording a `dequeued` history record; the history stays. */
  dequeue(entry: RepairEntry, reason: string, now: number, actor: string): RepairChange {
    return this.db.transaction(() => {
      const previous = this.get(entry.index);
      if (previous === null || this.deleteEntry.run(entry.index).changes !== 1) throw new Error(`repair entry ${entry.index} is not in the queue`);
      return { entry, previous, record: this.append(entry, "dequeued", reason, now, actor, null) };
    })();
  }

  /**
   * Marks for deletion every entry `select` picks that is not marked yet, in one transaction, re-reading inside it
   * so a concurrent change is never overwritten. Returns the entries it marked, ordered by index; `actor` asked.
   */
  requestDelete(select: (entry: RepairEntry) => boolean, reason: string, now: number, actor: string): RepairChange[] {
    return this.db.transaction(() =>
      this.list()
        .filter((e) => !e.deleted && select(e))
        .map((e) => {
          const entry = { ...e, deleted: true };
          this.updateEntry.run(entryParams(entry));
          return { entry, previous: e, record: this.append(entry, "delete-requested", reason, now, actor, null) };
        }),
    )();
  }

  /** Clears the drain back-off (count 0, no expiry) of every entry that has one, at `actor`'s request. */
  resetBackoff(reason: string, now: number, actor: string): RepairChange[] {
    return this.db.transaction(() =>
      this.list()
        .filter((e) => e.drainBackoffCount !== 0 || e.drainBackoffExpire !== null)
        .map((e) => {
          const entry = { ...e, drainBackoffCount: 0, drainBackoffExpire: null };
          this.updateEntry.run(entryParams(entry));
          return { entry, previous: e, record: this.append(entry, "backoff-reset", reason, now, actor, null) };
        }),
    )();
  }

  private append(entry: RepairEntry, kind: RepairHistoryKind, reason: string, now: number, actor: string, detail: string | null): RepairHistoryRecord {
    const record = historyRecordFor(entry, kind, reason, now, actor, detail);
    const { lastInsertRowid } = this.insertHistory.run({ ...record, deleted: record.deleted ? 1 : 0 });
    return { ...record, sequence: Number(lastInsertRowid) };
  }
}
