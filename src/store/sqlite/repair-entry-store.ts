import type { RepairEntry, RepairStatus, RepairStepStatus, UnindexedRepairEntry } from "../../domain/repair-entry.js";
import { historyRecordFor, type RepairHistoryKind, type RepairHistoryRecord } from "../../domain/repair-history.js";
import type { EntryWrite, RepairChange, RepairEntryPort, RepairTimelines } from "../store-port.js";
import { timelinesOf, type IndexedTimelinePoint } from "../timelines-read.js";
import type { Db } from "./database.js";
import { KeptRead } from "./kept-read.js";
import { SqliteFinishedRepairStore } from "./finished-repair-store.js";
import { entryFromRow, entryParams, historyFromRow, type RepairEntryRow, type RepairHistoryRow } from "./repair-entry-rows.js";
import type { CommitDraft, SqliteCommits } from "./sqlite-commits.js";

/**
 * The repair entries and their append-only history in SQLite. Every change writes the entry and its history record in
 * one transaction, so an entry never changes without a record of why; `decide` functions run inside it, on the stored
 * entry. Indexes come from SQLite's AUTOINCREMENT: monotonic and never reused, even after deletions and restarts.
 */
export class SqliteRepairEntryStore implements RepairEntryPort {
  private readonly insertEntry;
  private readonly updateEntry;
  private readonly deleteEntry;
  private readonly insertHistory;
  private readonly selectOne;
  private readonly selectAll;
  private readonly selectHistory;
  private readonly selectTimelines;
  private readonly kept: KeptRead<readonly RepairEntry[]>;
  /** The records of finished repairs, written in the same transaction as the change that ends one. */
  readonly finished: SqliteFinishedRepairStore;

  constructor(
    db: Db,
    private readonly commits: SqliteCommits,
    keepFinished?: number,
  ) {
    this.insertEntry = db.prepare(`INSERT INTO repair_entries (address, nodename, serial, machine_type, operation,
      status, step, step_status, deleted, last_transition_time, drain_backoff_count, drain_backoff_expire, created_at,
      source, evidence) VALUES (@address, @nodename, @serial, @machine_type, @operation, @status, @step, @step_status, @deleted,
      @last_transition_time, @drain_backoff_count, @drain_backoff_expire, @created_at, @source, @evidence)`);
    this.updateEntry = db.prepare(`UPDATE repair_entries SET nodename = @nodename, status = @status, step = @step,
      step_status = @step_status, deleted = @deleted, last_transition_time = @last_transition_time,
      drain_backoff_count = @drain_backoff_count, drain_backoff_expire = @drain_backoff_expire, evidence = @evidence WHERE idx = @idx`);
    this.deleteEntry = db.prepare("DELETE FROM repair_entries WHERE idx = ?");
    this.insertHistory = db.prepare(`INSERT INTO repair_history (entry_index, time, kind, reason, detail, status, step,
      step_status, deleted, actor) VALUES (@entryIndex, @time, @kind, @reason, @detail, @status, @step, @stepStatus, @deleted,
      @actor)`);
    this.selectOne = db.prepare("SELECT * FROM repair_entries WHERE idx = ?");
    this.selectAll = db.prepare("SELECT * FROM repair_entries ORDER BY idx");
    this.selectHistory = db.prepare("SELECT * FROM repair_history WHERE entry_index = ? ORDER BY seq");
    // Served from the covering index of migration 009 alone: no row of the table (reasons, details) is read. Rows
    // come as arrays: better-sqlite3 builds them faster than objects, which a 100,000-row read notices.
    this.selectTimelines = db
      .prepare(`SELECT entry_index, time, status, step, step_status FROM repair_history WHERE entry_index BETWEEN ? AND ? ORDER BY entry_index, seq LIMIT ?`)
      .raw();
    this.kept = new KeptRead(db, () => (this.selectAll.all() as RepairEntryRow[]).map(entryFromRow));
    this.finished = new SqliteFinishedRepairStore(db, keepFinished);
  }

  async timelines(firstIndex: number, lastIndex: number, limit: number): Promise<RepairTimelines> {
    const rows = this.selectTimelines.all(firstIndex, lastIndex, limit) as Array<[number, number, RepairStatus, number, RepairStepStatus]>;
    const points = rows.map(([entryIndex, time, status, step, stepStatus]): IndexedTimelinePoint => ({ entryIndex, time, status, step, stepStatus }));
    return timelinesOf(points, lastIndex, limit);
  }

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

  async history(index: number): Promise<RepairHistoryRecord[]> {
    return (this.selectHistory.all(index) as RepairHistoryRow[]).map(historyFromRow);
  }

  async add(entry: UnindexedRepairEntry, reason: string, now: number, actor: string): Promise<RepairChange> {
    return this.commits.write((draft) => this.insert(draft, entry, reason, now, actor));
  }

  /** Inside a write: appends an entry and its `created` record (the store root's `enqueue` adds several this way). */
  insert(draft: CommitDraft, entry: UnindexedRepairEntry, reason: string, now: number, actor: string): RepairChange {
    const { lastInsertRowid } = this.insertEntry.run(entryParams(entry));
    const stored = { ...entry, index: Number(lastInsertRowid) };
    return this.record(draft, stored, null, "created", reason, now, actor, null);
  }

  async change(index: number, decide: (current: RepairEntry | null) => readonly EntryWrite[] | null, now: number, actor: string): Promise<RepairChange[]> {
    return this.commits.write((draft) => {
      const current = this.get(index);
      const writes = decide(current);
      if (writes === null || writes.length === 0) return [];
      if (current === null) throw new Error(`repair entry ${index} is not in the queue`);
      let previous = current;
      return writes.map(({ entry, kind, reason, detail }) => {
        if (entry.index !== index) throw new Error(`a change of repair entry ${index} cannot write entry ${entry.index}`);
        this.updateEntry.run(entryParams(entry));
        const change = this.record(draft, entry, previous, kind, reason, now, actor, detail ?? null);
        previous = entry;
        return change;
      });
    });
  }

  async dequeue(index: number, decide: (current: RepairEntry) => string | null, now: number, actor: string): Promise<RepairChange | null> {
    return this.commits.write((draft) => {
      const current = this.get(index);
      const reason = current === null ? null : decide(current);
      if (current === null || reason === null) return null;
      this.deleteEntry.run(index);
      return this.record(draft, current, current, "dequeued", reason, now, actor, null);
    });
  }

  /** Marks what `select` picks, re-reading inside the transaction so a concurrent change is never overwritten. */
  async requestDelete(select: (entry: RepairEntry) => boolean, reason: string, now: number, actor: string): Promise<RepairChange[]> {
    return this.rewriteEach((e) => (!e.deleted && select(e) ? { ...e, deleted: true } : null), "delete-requested", reason, now, actor);
  }

  async resetBackoff(reason: string, now: number, actor: string): Promise<RepairChange[]> {
    const reset = (e: RepairEntry) =>
      e.drainBackoffCount !== 0 || e.drainBackoffExpire !== null ? { ...e, drainBackoffCount: 0, drainBackoffExpire: null } : null;
    return this.rewriteEach(reset, "backoff-reset", reason, now, actor);
  }

  /** One write over the whole queue: every entry `rewrite` returns a new version of is stored with one record. */
  private rewriteEach(
    rewrite: (entry: RepairEntry) => RepairEntry | null,
    kind: RepairHistoryKind,
    reason: string,
    now: number,
    actor: string,
  ): RepairChange[] {
    return this.commits.write((draft) =>
      this.list().flatMap((e) => {
        const entry = rewrite(e);
        if (entry === null) return [];
        this.updateEntry.run(entryParams(entry));
        return [this.record(draft, entry, e, kind, reason, now, actor, null)];
      }),
    );
  }

  private record(
    draft: CommitDraft,
    entry: RepairEntry,
    previous: RepairEntry | null,
    kind: RepairHistoryKind,
    reason: string,
    now: number,
    actor: string,
    detail: string | null,
  ): RepairChange {
    const unnumbered = historyRecordFor(entry, kind, reason, now, actor, detail);
    const { lastInsertRowid } = this.insertHistory.run({ ...unnumbered, deleted: unnumbered.deleted ? 1 : 0 });
    const change: RepairChange = { entry, previous, record: { ...unnumbered, sequence: Number(lastInsertRowid) } };
    this.finished.note(change);
    draft.entries.push(change);
    return change;
  }
}
