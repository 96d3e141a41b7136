import { gunzipSync } from "node:zlib";
import { SnapshotSourceError, type SnapshotCounters, type SnapshotItem, type SnapshotReplayRecord } from "../../../copy/store-snapshot.js";
import { readWorkerSelection } from "../../../../domain/cluster/worker-selection.js";
import type { PollRecord } from "../../../../domain/replay/poll-record.js";
import type { RemediationRecord } from "../../../../domain/replay/remediation-record.js";
import { decodePollRecord, decodeRemediationRecord } from "../../../poll-record-schema.js";
import {
  finishedFromRow,
  holdFromRow,
  outcomeFromRow,
  type FinishedRepairRow,
  type GenerationRow,
  type MachineHoldRow,
  type OutcomeRow,
} from "./legacy-rows.js";
import type { Db } from "../database.js";
import { entryFromRow, historyFromRow, type RepairEntryRow, type RepairHistoryRow } from "./repair-entry-rows.js";

/** The AUTOINCREMENT tables behind each counter, with their key column. */
const COUNTED = {
  nextIndex: ["repair_entries", "idx"],
  nextHistorySequence: ["repair_history", "seq"],
  nextOutcomeSequence: ["auto_repair_outcomes", "seq"],
  nextGenerationSequence: ["cluster_generations", "seq"],
} as const satisfies Record<keyof SnapshotCounters, readonly [string, string]>;

/**
 * The snapshot of a SQLite store, read in one read transaction (so a write by another connection cannot tear it) and
 * streamed row by row. `from` names the database in errors.
 */
export async function* sqliteSnapshotItems(db: Db, from: string): AsyncGenerator<SnapshotItem> {
  db.exec("BEGIN");
  try {
    yield* sqliteSnapshotRows(db, from);
  } finally {
    if (db.inTransaction) db.exec("COMMIT");
  }
}

/**
 * The snapshot of a SQLite store, streamed row by row and synchronously, for a caller that holds the transaction it
 * is read in (a migration: better-sqlite3 cannot await inside one). Counters are what AUTOINCREMENT hands out next:
 * past the highest number `sqlite_sequence` remembers (it outlives deleted rows) and past every row there is. `from`
 * names the database in errors.
 */
export function* sqliteSnapshotRows(db: Db, from: string): Generator<SnapshotItem> {
  for (const row of db.prepare("SELECT key, value FROM settings ORDER BY key").iterate() as Iterable<{ key: string; value: string }>) {
    yield { kind: "setting", name: row.key, value: parsed(from, `setting ${row.key}`, row.value) };
  }
  for (const row of db.prepare("SELECT * FROM repair_entries ORDER BY idx").iterate() as Iterable<RepairEntryRow>) {
    yield { kind: "entry", entry: entryFromRow(row) };
  }
  for (const row of db.prepare("SELECT * FROM repair_history ORDER BY entry_index, seq").iterate() as Iterable<RepairHistoryRow>) {
    yield { kind: "history", record: historyFromRow(row) };
  }
  for (const row of db.prepare("SELECT * FROM auto_repair_outcomes ORDER BY seq").iterate() as Iterable<OutcomeRow>) {
    yield { kind: "outcome", outcome: readable(from, `poll outcome ${row.seq}`, () => outcomeFromRow(row)) };
  }
  for (const row of db.prepare("SELECT * FROM cluster_generations ORDER BY seq").iterate() as Iterable<GenerationRow>) {
    yield { kind: "generation", generation: generationFromRow(from, row) };
  }
  for (const row of db.prepare("SELECT * FROM machine_holds ORDER BY address").iterate() as Iterable<MachineHoldRow>) {
    yield { kind: "hold", hold: holdFromRow(row) };
  }
  for (const row of db.prepare("SELECT * FROM finished_repairs ORDER BY seq").iterate() as Iterable<FinishedRepairRow>) {
    yield { kind: "finished", finished: finishedFromRow(row) };
  }
  for (const row of db.prepare("SELECT seq, kind, body FROM poll_records ORDER BY seq").iterate() as Iterable<{ seq: number; kind: string; body: Buffer }>) {
    yield { kind: "replay", replay: replayFromRow(from, row) };
  }
  yield { kind: "counters", counters: counters(db) };
}

/** A replay record row decoded whole; one that cannot be read stops the snapshot, naming it (a copy must not drop it). */
function replayFromRow(from: string, row: { seq: number; kind: string; body: Buffer }): SnapshotReplayRecord {
  const decoded =
    row.kind === "intake"
      ? decodePollRecord(row.body)
      : row.kind === "health-check"
        ? decodeRemediationRecord(row.body)
        : { ok: false as const, message: `kind ${JSON.stringify(row.kind)}` };
  if (!decoded.ok) throw new SnapshotSourceError(`${from}: the replay record ${row.seq} cannot be read: ${decoded.message}`);
  return row.kind === "intake"
    ? { sequence: row.seq, area: "intake", record: decoded.record as PollRecord }
    : { sequence: row.seq, area: "health-check", record: decoded.record as RemediationRecord };
}

function generationFromRow(from: string, r: GenerationRow) {
  const what = `generation record ${r.seq}`;
  return {
    sequence: r.seq,
    time: r.time,
    lastTime: r.last_time,
    repeats: r.repeats,
    trigger: r.trigger,
    policy: readWorkerSelection(r.policy),
    generation: r.generation,
    cluster: r.cluster === null ? null : readable(from, what, () => gunzipSync(r.cluster as Buffer).toString("utf8")),
    changes: parsed(from, what, r.changes) as string[],
    error: r.error,
  };
}

function counters(db: Db): SnapshotCounters {
  const next = (table: string, column: string): number => {
    const used = db
      .prepare(`SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), COALESCE((SELECT MAX(${column}) FROM ${table}), 0))`)
      .pluck();
    return (used.get(table) as number) + 1;
  };
  return {
    nextIndex: next(...COUNTED.nextIndex),
    nextHistorySequence: next(...COUNTED.nextHistorySequence),
    nextOutcomeSequence: next(...COUNTED.nextOutcomeSequence),
    nextGenerationSequence: next(...COUNTED.nextGenerationSequence),
  };
}

function parsed(from: string, what: string, json: string): unknown {
  return readable(from, what, () => JSON.parse(json) as unknown);
}

/** Runs a decoding of a stored value; its failure becomes an error naming the database and the value. */
function readable<T>(from: string, what: string, decode: () => T): T {
  try {
    return decode();
  } catch (err) {
    throw new SnapshotSourceError(`${from}: the ${what} cannot be read: ${(err as Error).message}`);
  }
}
