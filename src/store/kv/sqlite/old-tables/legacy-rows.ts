// The rows of the tables an older kintsugi kept (migrations 1-12), read only to convert them to the key-value table
// (src/store/kv/sqlite/old-tables/convert-sqlite-tables.ts) and by `db check` of a file not converted yet.
import type { AutoRepairOutcome } from "../../../../domain/intake/auto-repair-outcome.js";
import type { GenerationTrigger } from "../../../../domain/cluster/generation-record.js";
import type { FinishedRepair, FinishedRepairStatus } from "../../../../domain/queue/finished-repair.js";
import type { StoredMachineHold } from "../../../../domain/holds/machine-holds.js";
import type { ProofOutcome } from "../../../../domain/proof/repair-evidence.js";
import { skippedFromStored, type StoredSkippedMachine } from "../../../../domain/intake/skip-kinds.js";

/** An auto_repair_outcomes row as SQLite returns it. */
export interface OutcomeRow {
  seq: number;
  time: number;
  trigger: AutoRepairOutcome["trigger"];
  machines_seen: number;
  enqueued: string;
  skipped: string;
  short_circuit: string | null;
  error: string | null;
  /** NULL in rows written before the skipped list was bounded (their list is whole). */
  skipped_total: number | null;
  skipped_by_kind: string | null;
}

/** An outcome as an old row holds it. */
export function outcomeFromRow(r: OutcomeRow): AutoRepairOutcome {
  return {
    sequence: r.seq,
    time: r.time,
    trigger: r.trigger,
    machinesSeen: r.machines_seen,
    enqueued: JSON.parse(r.enqueued),
    // Rows written before kintsugi kept kinds and racks lack them.
    skipped: (JSON.parse(r.skipped) as StoredSkippedMachine[]).map(skippedFromStored),
    ...(r.skipped_total !== null && r.skipped_by_kind !== null && { skippedCounts: { total: r.skipped_total, byKind: JSON.parse(r.skipped_by_kind) } }),
    shortCircuit: r.short_circuit === null ? null : JSON.parse(r.short_circuit),
    error: r.error,
  };
}

/** A cluster_generations row as SQLite returns it. */
export interface GenerationRow {
  seq: number;
  time: number;
  last_time: number;
  repeats: number;
  trigger: GenerationTrigger;
  generation: number;
  /** gzip'd JSON: 8,000 nodes are 4.9 MB of JSON and 260 kB gzip'd. */
  cluster: Buffer | null;
  changes: string;
  error: string | null;
  /** NULL in rows written before records named their policy: weighted. */
  policy: string | null;
}

/** A machine_holds row as SQLite returns it (see migration 006). */
export interface MachineHoldRow {
  address: string;
  reason: string;
  set_by: string;
  set_at: number;
  until: number | null;
}

export function holdFromRow(r: MachineHoldRow): StoredMachineHold {
  return Object.freeze({ address: r.address, reason: r.reason, setBy: r.set_by, setAt: r.set_at, until: r.until });
}

/** A finished_repairs row as SQLite returns it. */
export interface FinishedRepairRow {
  seq: number;
  entry_index: number;
  address: string;
  machine_type: string;
  operation: string;
  source: string;
  created_at: number;
  finished_at: number;
  status: FinishedRepairStatus;
  proof: ProofOutcome | null;
}

export function finishedFromRow(r: FinishedRepairRow): FinishedRepair {
  return {
    sequence: r.seq,
    entryIndex: r.entry_index,
    address: r.address,
    machineType: r.machine_type,
    operation: r.operation,
    source: r.source,
    createdAt: r.created_at,
    finishedAt: r.finished_at,
    status: r.status,
    proof: r.proof,
  };
}
