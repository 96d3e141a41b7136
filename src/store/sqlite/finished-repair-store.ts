import { finishedRepairOf, finishedSince, KEPT_FINISHED_REPAIRS, type FinishedRepair, type FinishedRepairStatus } from "../../domain/finished-repair.js";
import type { ProofOutcome } from "../../domain/repair-evidence.js";
import type { FinishedRepairPort, RepairChange } from "../store-port.js";
import type { Db } from "./database.js";
import { KeptRead } from "./kept-read.js";

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

/** Named parameters for inserting a record (better-sqlite3 binds `@name`). */
export function finishedParams(f: FinishedRepair) {
  return {
    seq: f.sequence,
    entry_index: f.entryIndex,
    address: f.address,
    machine_type: f.machineType,
    operation: f.operation,
    source: f.source,
    created_at: f.createdAt,
    finished_at: f.finishedAt,
    status: f.status,
    proof: f.proof,
  };
}

export const INSERT_FINISHED_REPAIR = `INSERT INTO finished_repairs (seq, entry_index, address, machine_type, operation, source,
  created_at, finished_at, status, proof) VALUES (@seq, @entry_index, @address, @machine_type, @operation, @source,
  @created_at, @finished_at, @status, @proof)`;

/**
 * The finished repairs in SQLite: the entry store calls {@link note} with every change inside its transaction, so a
 * record lands with the change that ended the repair or not at all; the newest `keep` are kept.
 */
export class SqliteFinishedRepairStore implements FinishedRepairPort {
  // The SQLite table store is replaced by the store core over a SQLite driver, which keeps summaries; until then this
  // store keeps none, and statistics read histories as they always did.
  summaryOf(): undefined {
    return undefined;
  }

  async storeSummaries(): Promise<number> {
    return 0;
  }

  private readonly insert;
  private readonly prune;
  private readonly recorded;
  private readonly kept: KeptRead<readonly FinishedRepair[]>;

  constructor(
    db: Db,
    private readonly keep = KEPT_FINISHED_REPAIRS,
  ) {
    this.insert = db.prepare(INSERT_FINISHED_REPAIR);
    this.prune = db.prepare("DELETE FROM finished_repairs WHERE seq <= (SELECT seq FROM finished_repairs ORDER BY seq DESC LIMIT 1 OFFSET ?)");
    this.recorded = db.prepare("SELECT 1 FROM finished_repairs WHERE entry_index = ? LIMIT 1").pluck();
    const all = db.prepare("SELECT * FROM finished_repairs ORDER BY seq");
    this.kept = new KeptRead(db, () => (all.all() as FinishedRepairRow[]).map(finishedFromRow));
  }

  /** Inside an entry write: keeps the record `change` leaves (see finishedRepairOf), pruning beyond the newest `keep`. */
  note(change: RepairChange): void {
    const record = finishedRepairOf(change, this.recorded.get(change.entry.index) !== undefined);
    if (record === null) return;
    this.insert.run(finishedParams(record));
    this.prune.run(this.keep);
  }

  list(since: number | null = null): FinishedRepair[] {
    return finishedSince(this.kept.get(), since);
  }
}
