import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import type { SnapshotItem, SnapshotTarget } from "../copy/store-snapshot.js";
import { TargetNotEmptyError } from "../copy/store-snapshot.js";
import { DatabaseOpenError, openDatabase, openDatabaseReadOnly, type Db } from "./database.js";
import { lockDatabase } from "./database-lock.js";
import { UPSERT_HOLD } from "./machine-hold-store.js";
import { entryParams } from "./repair-entry-rows.js";
import { encodePollRecord } from "../poll-record-schema.js";
import { finishedParams, INSERT_FINISHED_REPAIR } from "./finished-repair-store.js";
import { howToEmptySqlite, removeCopyMarker, writeCopyMarker } from "./sqlite-copy-marker.js";
import { COUNTER_TABLES, sqliteSnapshotItems } from "./sqlite-snapshot-export.js";
import { skippedCountColumns } from "./auto-repair-outcome-store.js";

/** Rows per transaction: each commit is an fsync (synchronous=FULL), and a chunk stays a bounded amount of memory. */
const CHUNK_LIMITS = { items: 1000, bytes: 8 * 1024 * 1024 } as const;

/** Every row a database file holds outside the schema bookkeeping, counters included; 0 for a missing or empty file. */
function rowsIn(file: string): number {
  if (!existsSync(file) || statSync(file).size === 0) return 0;
  const db = openDatabaseReadOnly(file);
  try {
    const tables = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'schema_version' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
      .pluck()
      .all() as string[];
    const counters = db.prepare("SELECT name FROM sqlite_master WHERE name = 'sqlite_sequence'").pluck().all().length;
    return [...tables, ...(counters > 0 ? ["sqlite_sequence"] : [])].reduce(
      (sum, table) =>
        sum +
        (db
          .prepare(`SELECT COUNT(*) FROM "${table.replaceAll('"', '""')}"`)
          .pluck()
          .get() as number),
      0,
    );
  } catch (err) {
    throw new DatabaseOpenError(`cannot read database ${file}: ${(err as Error).message}`);
  } finally {
    db.close();
  }
}

/**
 * A SQLite file as the target of a copy. It takes the database's lock at once (a running kintsugi's file is refused,
 * and none can start on it during the copy), looks into an existing file read-only to refuse one that holds anything,
 * and only then opens (creating and migrating) it and writes: the marker row first, then one transaction per chunk
 * with the original indexes and sequences, and the counters into `sqlite_sequence`, so AUTOINCREMENT goes on above them.
 */
export function openSqliteSnapshotTarget(path: string): SnapshotTarget {
  const file = resolve(path);
  const lock = lockDatabase(file);
  let db: Db | null = null;
  const open = (): Db => {
    if (db === null) throw new Error(`the copy into ${file} has not begun`);
    return db;
  };
  return {
    description: `sqlite:${file}`,
    howToEmpty: howToEmptySqlite(file),
    chunkLimits: CHUNK_LIMITS,
    async checkEmpty() {
      const rows = rowsIn(file);
      if (rows > 0)
        throw new TargetNotEmptyError(`the SQLite database ${file} already holds data (${rows} ${rows === 1 ? "row" : "rows"}); copy only into an empty store`);
    },
    async begin(marker) {
      db = openDatabase(file);
      const opened = db;
      opened.transaction(() => writeCopyMarker(opened, marker))();
    },
    async writeChunk(items) {
      const target = open();
      const write = rowWriter(target);
      target.transaction(() => items.forEach(write))();
    },
    items: () => sqliteSnapshotItems(open(), `sqlite:${file}`),
    async finish() {
      const target = open();
      target.transaction(() => removeCopyMarker(target))();
    },
    async close() {
      db?.close();
      db = null;
      lock.release();
    },
  };
}

/** Writes one snapshot item as the SQLite stores keep it (see the migrations and the stores' own statements). */
function rowWriter(db: Db): (item: SnapshotItem) => void {
  const statement = (sql: string) => db.prepare(sql);
  const setting = statement("INSERT INTO settings (key, value) VALUES (?, ?)");
  const entry = statement(`INSERT INTO repair_entries (idx, address, nodename, serial, machine_type, operation, status, step,
    step_status, deleted, last_transition_time, drain_backoff_count, drain_backoff_expire, created_at, source, evidence) VALUES
    (@idx, @address, @nodename, @serial, @machine_type, @operation, @status, @step, @step_status, @deleted, @last_transition_time,
    @drain_backoff_count, @drain_backoff_expire, @created_at, @source, @evidence)`);
  const history = statement(`INSERT INTO repair_history (seq, entry_index, time, kind, reason, detail, status, step, step_status,
    deleted, actor) VALUES (@sequence, @entryIndex, @time, @kind, @reason, @detail, @status, @step, @stepStatus, @deleted, @actor)`);
  const outcome = statement(`INSERT INTO auto_repair_outcomes (seq, time, trigger, machines_seen, enqueued, skipped, short_circuit,
    error, skipped_total, skipped_by_kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const generation = statement(`INSERT INTO cluster_generations (seq, time, last_time, repeats, trigger, generation, cluster,
    changes, error, policy) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const hold = statement(UPSERT_HOLD);
  const finished = statement(INSERT_FINISHED_REPAIR);
  const replay = statement("INSERT INTO poll_records (seq, kind, time, bytes, body) VALUES (?, ?, ?, ?, ?)");
  const forget = statement("DELETE FROM sqlite_sequence WHERE name = ?");
  const remember = statement("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)");
  return (item) => {
    switch (item.kind) {
      case "setting":
        setting.run(item.name, JSON.stringify(item.value));
        return;
      case "entry":
        entry.run(entryParams(item.entry));
        return;
      case "history":
        history.run({ ...item.record, deleted: item.record.deleted ? 1 : 0 });
        return;
      case "outcome": {
        const o = item.outcome;
        const shortCircuit = o.shortCircuit === null ? null : JSON.stringify(o.shortCircuit);
        const counts = skippedCountColumns(o.skippedCounts);
        outcome.run(
          o.sequence,
          o.time,
          o.trigger,
          o.machinesSeen,
          JSON.stringify(o.enqueued),
          JSON.stringify(o.skipped),
          shortCircuit,
          o.error,
          counts.skippedTotal,
          counts.skippedByKind,
        );
        return;
      }
      case "generation": {
        const g = item.generation;
        const cluster = g.cluster === null ? null : gzipSync(g.cluster);
        generation.run(g.sequence, g.time, g.lastTime, g.repeats, g.trigger, g.generation, cluster, JSON.stringify(g.changes), g.error, g.policy);
        return;
      }
      case "hold":
        hold.run(item.hold);
        return;
      case "finished":
        finished.run(finishedParams(item.finished));
        return;
      case "replay": {
        const body = encodePollRecord(item.replay.record);
        replay.run(item.replay.sequence, item.replay.area, item.replay.record.time, body.length, body);
        return;
      }
      case "counters":
        for (const [counter, table] of Object.entries(COUNTER_TABLES) as Array<[keyof typeof COUNTER_TABLES, string]>) {
          // sqlite_sequence holds the last number handed out; it has no unique key, hence the delete first.
          forget.run(table);
          remember.run(table, item.counters[counter] - 1);
        }
        return;
    }
  };
}
