// The tables an older kintsugi kept (migrations 1-12), read only to convert them to the key-value table and by a
// copy or `db check` of a file not converted yet. Rows are selected in the snapshot's own field names; the copy and
// the conversion check every item against the stores' shapes (checkSnapshotItem) before they use it.
import { gunzipSync } from "node:zlib";
import { SnapshotSourceError, type SnapshotItem } from "../../../copy/store-snapshot.js";
import type { SnapshotGeneration } from "../../../copy/snapshot-kinds.js";
import type { SnapshotCounters } from "../../../copy/snapshot-digest.js";
import { readWorkerSelection } from "../../../../domain/cluster/worker-selection.js";
import type { RepairEntry } from "../../../../domain/queue/repair-entry.js";
import type { RepairHistoryRecord } from "../../../../domain/queue/repair-history.js";
import type { FinishedRepair } from "../../../../domain/queue/finished-repair.js";
import type { StoredMachineHold } from "../../../../domain/holds/machine-holds.js";
import type { AutoRepairOutcome } from "../../../../domain/intake/auto-repair-outcome.js";
import { skippedFromStored, type StoredSkippedMachine } from "../../../../domain/intake/skip-kinds.js";
import { decodeReplay } from "../../../poll-record-schema.js";
import { repairEvidenceSchema } from "../../../core/value-schemas.js";
import { canonicalEvidence, type RepairEvidence } from "../../../../domain/proof/repair-evidence.js";
import type { Db } from "../database.js";

const STATE = "status, step, step_status AS stepStatus, deleted";
const ENTRIES =
  `SELECT idx AS "index", address, nodename, serial, machine_type AS machineType, operation, ${STATE}, last_transition_time AS lastTransitionTime, ` +
  "drain_backoff_count AS drainBackoffCount, drain_backoff_expire AS drainBackoffExpire, created_at AS createdAt, source, evidence FROM repair_entries ORDER BY idx";
const HISTORY = `SELECT seq AS sequence, entry_index AS entryIndex, time, kind, reason, detail, ${STATE}, actor FROM repair_history ORDER BY entry_index, seq`;
const HOLDS = "SELECT address, reason, set_by AS setBy, set_at AS setAt, until FROM machine_holds ORDER BY address";
const FINISHED =
  "SELECT seq AS sequence, entry_index AS entryIndex, address, machine_type AS machineType, operation, source, created_at AS createdAt, " +
  "finished_at AS finishedAt, status, proof FROM finished_repairs ORDER BY seq";
const OUTCOMES =
  "SELECT seq AS sequence, time, trigger, machines_seen AS machinesSeen, enqueued, skipped, short_circuit AS shortCircuit, error, " +
  "skipped_total AS total, skipped_by_kind AS byKind FROM auto_repair_outcomes ORDER BY seq";
const GENERATIONS =
  "SELECT seq AS sequence, time, last_time AS lastTime, repeats, trigger, policy, generation, cluster, changes, error FROM cluster_generations ORDER BY seq";
/** The rows of the tables that hold the snapshot's items (schema_version is the migrations' own, copy_in_progress a copy's). */
const ITEM_ROWS =
  "SELECT (SELECT COUNT(*) FROM settings) + (SELECT COUNT(*) FROM repair_entries) + (SELECT COUNT(*) FROM repair_history) + " +
  "(SELECT COUNT(*) FROM auto_repair_outcomes) + (SELECT COUNT(*) FROM cluster_generations) + (SELECT COUNT(*) FROM machine_holds) + " +
  "(SELECT COUNT(*) FROM finished_repairs) + (SELECT COUNT(*) FROM poll_records)";

type Row<T> = Omit<T, "deleted"> & { deleted: 0 | 1 };
/** `total` and `byKind` are NULL in rows written before the skipped list was bounded (their list is whole). */
type OutcomeRow = Omit<AutoRepairOutcome, "enqueued" | "skipped" | "skippedCounts" | "shortCircuit"> & {
  [json in "enqueued" | "skipped"]: string;
} & { shortCircuit: string | null; total: number | null; byKind: string | null };
type GenerationRow = Omit<SnapshotGeneration, "policy" | "cluster" | "changes"> & { policy: string | null; cluster: Buffer | null; changes: string };

/** How many rows the old tables of `db` hold: what a conversion or a copy of it has to do. */
export function oldTableRows(db: Db): number {
  return db.prepare(ITEM_ROWS).pluck().get() as number;
}

/** A snapshot of the old tables, read in one read transaction (a write by another connection cannot tear it). */
export async function* sqliteSnapshotItems(db: Db, from: string): AsyncGenerator<SnapshotItem> {
  db.exec("BEGIN");
  try {
    yield* sqliteSnapshotRows(db, from);
  } finally {
    if (db.inTransaction) db.exec("COMMIT");
  }
}

/**
 * The snapshot of the old tables, streamed row by row and synchronously, for a caller that holds the transaction
 * (better-sqlite3 cannot await inside one). Counters are what AUTOINCREMENT hands out next: past the highest number
 * `sqlite_sequence` remembers (it outlives deleted rows) and past every row there is.
 */
export function* sqliteSnapshotRows(db: Db, from: string): Generator<SnapshotItem> {
  const rows = <T>(sql: string) => db.prepare(sql).iterate() as Iterable<T>;
  for (const row of rows<{ key: string; value: string }>("SELECT key, value FROM settings ORDER BY key")) {
    yield { kind: "setting", name: row.key, value: parsed(from, `setting ${row.key}`, row.value) };
  }
  for (const { evidence, ...r } of rows<Row<RepairEntry> & { evidence: string | null }>(ENTRIES)) {
    const entry = { ...r, deleted: r.deleted === 1 };
    yield { kind: "entry", entry: evidence === null ? entry : { ...entry, evidence: parseStoredEvidence(evidence, `repair entry ${r.index}`) } };
  }
  for (const r of rows<Row<RepairHistoryRecord>>(HISTORY)) yield { kind: "history", record: { ...r, deleted: r.deleted === 1 } };
  for (const { enqueued, skipped, shortCircuit, total, byKind, ...r } of rows<OutcomeRow>(OUTCOMES)) {
    const outcome = readable(from, `poll outcome ${r.sequence}`, () => ({
      ...r,
      enqueued: JSON.parse(enqueued) as RepairEntry[],
      // Rows written before kintsugi kept kinds and racks lack them.
      skipped: (JSON.parse(skipped) as StoredSkippedMachine[]).map(skippedFromStored),
      ...(total !== null && byKind !== null && { skippedCounts: { total, byKind: JSON.parse(byKind) } }),
      shortCircuit: shortCircuit === null ? null : JSON.parse(shortCircuit),
    }));
    yield { kind: "outcome", outcome };
  }
  for (const { policy, cluster, changes, ...r } of rows<GenerationRow>(GENERATIONS)) {
    const what = `generation record ${r.sequence}`;
    const json = cluster === null ? null : readable(from, what, () => gunzipSync(cluster).toString("utf8"));
    yield { kind: "generation", generation: { ...r, policy: readWorkerSelection(policy), cluster: json, changes: parsed(from, what, changes) as string[] } };
  }
  for (const hold of rows<StoredMachineHold>(HOLDS)) yield { kind: "hold", hold };
  for (const finished of rows<FinishedRepair>(FINISHED)) yield { kind: "finished", finished };
  for (const row of rows<{ seq: number; kind: string; body: Buffer }>("SELECT seq, kind, body FROM poll_records ORDER BY seq")) {
    // Decoded whole: one that cannot be read stops the snapshot, naming it (a copy must not drop it).
    const decoded = decodeReplay(row.kind, row.body);
    if (!decoded.ok) throw new SnapshotSourceError(`${from}: the replay record ${row.seq} cannot be read: ${decoded.message}`);
    yield { kind: "replay", replay: { sequence: row.seq, ...decoded.replay } };
  }
  const counters: SnapshotCounters = {
    nextIndex: nextAfter(db, "repair_entries", "idx"),
    nextHistorySequence: nextAfter(db, "repair_history", "seq"),
    nextOutcomeSequence: nextAfter(db, "auto_repair_outcomes", "seq"),
    nextGenerationSequence: nextAfter(db, "cluster_generations", "seq"),
  };
  yield { kind: "counters", counters };
}

/** What AUTOINCREMENT hands out next in `table`: past every number `sqlite_sequence` remembers and every row's `column`. */
export function nextAfter(db: Db, table: string, column: string): number {
  const used = db.prepare(`SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), COALESCE((SELECT MAX(${column}) FROM ${table}), 0))`);
  return (used.pluck().get(table) as number) + 1;
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

/** The evidence kept as JSON text (the old tables' column), checked; throws naming `where` and the fault. */
export function parseStoredEvidence(text: string, where: string): RepairEvidence {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new Error(`${where}: its proof of repair evidence is not JSON: ${(err as Error).message}`, { cause: err });
  }
  const parsed = repairEvidenceSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const at = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new Error(`${where}: its proof of repair evidence is invalid${at}: ${issue?.message ?? "invalid"}`);
  }
  // canonicalEvidence keeps only the signals `since` has a time for.
  return canonicalEvidence(parsed.data);
}
