import { KEPT_OUTCOMES, type AutoRepairOutcome } from "../../domain/auto-repair-outcome.js";
import { skippedFromStored, type StoredSkippedMachine } from "../../domain/skip-kinds.js";
import type { SkippedCounts } from "../../domain/skipped-bound.js";
import type { AutoRepairOutcomePort } from "../store-port.js";
import type { Db } from "./database.js";
import type { CommitDraft, SqliteCommits } from "./sqlite-commits.js";

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

/** The skipped_total and skipped_by_kind columns of an outcome (NULL when it keeps no counts). */
export function skippedCountColumns(counts: SkippedCounts | undefined): { skippedTotal: number | null; skippedByKind: string | null } {
  return counts === undefined ? { skippedTotal: null, skippedByKind: null } : { skippedTotal: counts.total, skippedByKind: JSON.stringify(counts.byKind) };
}

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

/** The outcomes of sabakan polls in SQLite, newest 1,000 kept. */
export class SqliteOutcomeStore implements AutoRepairOutcomePort {
  private readonly insert;
  private readonly prune;
  private readonly selectLast;

  constructor(
    db: Db,
    private readonly commits: SqliteCommits,
    private readonly keep = KEPT_OUTCOMES,
  ) {
    this.insert =
      db.prepare(`INSERT INTO auto_repair_outcomes (time, trigger, machines_seen, enqueued, skipped, short_circuit, error, skipped_total, skipped_by_kind)
      VALUES (@time, @trigger, @machinesSeen, @enqueued, @skipped, @shortCircuit, @error, @skippedTotal, @skippedByKind)`);
    this.prune = db.prepare("DELETE FROM auto_repair_outcomes WHERE seq <= ?");
    this.selectLast = db.prepare("SELECT * FROM (SELECT * FROM auto_repair_outcomes ORDER BY seq DESC LIMIT ?) ORDER BY seq");
  }

  /** Appends an outcome and drops the ones beyond the newest `keep`. */
  async record(outcome: Omit<AutoRepairOutcome, "sequence">): Promise<AutoRepairOutcome> {
    return this.commits.write((draft) => this.append(draft, outcome));
  }

  /** Inside a write: `record` (the store root's `enqueue` records the outcome with its entries this way). */
  append(draft: CommitDraft, outcome: Omit<AutoRepairOutcome, "sequence">): AutoRepairOutcome {
    const { lastInsertRowid } = this.insert.run({
      time: outcome.time,
      trigger: outcome.trigger,
      machinesSeen: outcome.machinesSeen,
      enqueued: JSON.stringify(outcome.enqueued),
      skipped: JSON.stringify(outcome.skipped),
      shortCircuit: outcome.shortCircuit === null ? null : JSON.stringify(outcome.shortCircuit),
      error: outcome.error,
      ...skippedCountColumns(outcome.skippedCounts),
    });
    const sequence = Number(lastInsertRowid);
    this.prune.run(sequence - this.keep);
    draft.outcome = { ...outcome, sequence };
    return draft.outcome;
  }

  /** The newest `count` outcomes (all kept when null), oldest first. */
  async last(count: number | null): Promise<AutoRepairOutcome[]> {
    return (this.selectLast.all(count ?? this.keep) as OutcomeRow[]).map(outcomeFromRow);
  }
}
