import type { FinishedRepair } from "../domain/queue/finished-repair.js";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import { proofOutcomeOf, type ProofOutcome } from "../domain/proof/repair-evidence.js";
import type { FinishedOutcome, PacingDomain, PacingInput } from "../domain/pacing/repair-pacing.js";
import type { KintsugiStore, StoreCommit } from "../store/store-port.js";
import type { RunnerDeps } from "./runner-deps.js";

/** Finished outcomes kept; pacing reads only the newest (a failure resets an allowance, so old ones stop mattering). */
export const KEPT_PACING_OUTCOMES = 5000;

interface LedgerOutcome {
  readonly entryIndex: number;
  readonly address: string;
  readonly machineType: string;
  readonly status: "succeeded" | "failed";
  readonly time: number;
  readonly proof: ProofOutcome | undefined;
}

/**
 * The finished outcomes pacing folds, in the order entries finished: seeded from the finished entries still in the
 * queue and the store's finished-repair records, then fed by every commit that finishes an entry (on every replica, so a new leader paces as the old one).
 * Kept in memory and bounded, so a pass reads no history.
 */
export class PacingLedger {
  private outcomes: LedgerOutcome[] = [];
  private readonly known = new Set<number>();

  constructor(private readonly keep = KEPT_PACING_OUTCOMES) {}

  /**
   * Adds the outcomes not seen yet of the finished entries still in `entries` and of the store's finished-repair
   * `records` (which outlive the queue: outcomes already dequeued, on whichever replica dequeued them), each entry
   * once, by the time it finished (then index). Records of entries deleted before finishing are no outcome.
   */
  seed(entries: readonly RepairEntry[], records: readonly FinishedRepair[] = []): void {
    const found = new Map<number, LedgerOutcome>();
    for (const r of records) {
      if (r.status !== "deleted")
        found.set(r.entryIndex, {
          entryIndex: r.entryIndex,
          address: r.address,
          machineType: r.machineType,
          status: r.status,
          time: r.finishedAt,
          proof: r.proof ?? undefined,
        });
    }
    for (const e of entries) {
      if (isFinished(e)) found.set(e.index, outcomeOf(e, e.lastTransitionTime ?? e.createdAt));
    }
    const fresh = [...found.values()].filter((o) => !this.known.has(o.entryIndex));
    fresh.sort((a, b) => a.time - b.time || a.entryIndex - b.entryIndex);
    for (const o of fresh) this.push(o);
  }

  /**
   * Adds each entry `commit` finished (its previous state unfinished), at its last transition time, as `seed` does,
   * so an outcome reads the same before and after a restart.
   */
  record(commit: StoreCommit): void {
    for (const change of commit.entries) {
      if (!isFinished(change.entry) || (change.previous !== null && isFinished(change.previous))) continue;
      if (this.known.has(change.entry.index)) continue;
      this.add(change.entry, change.entry.lastTransitionTime ?? change.record.time);
    }
  }

  /** The pacing input for the configured `domains`, racks read through `rackOf` for the outcomes and `entries`. */
  input(domains: readonly PacingDomain[], entries: readonly RepairEntry[], rackOf: (address: string) => number | null): PacingInput {
    const racks = new Map<string, number>();
    const note = (address: string) => {
      const rack = rackOf(address);
      if (rack !== null) racks.set(address, rack);
    };
    for (const e of entries) note(e.address);
    const finished: FinishedOutcome[] = this.outcomes.map((o) => ({
      entryIndex: o.entryIndex,
      machineType: o.machineType,
      rack: rackOf(o.address),
      status: o.status,
      time: o.time,
      ...(o.proof && { proof: o.proof }),
    }));
    return { domains, racks, finished };
  }

  private add(entry: RepairEntry, time: number): void {
    this.push(outcomeOf(entry, time));
  }

  private push(outcome: LedgerOutcome): void {
    this.known.add(outcome.entryIndex);
    this.outcomes.push(outcome);
    if (this.outcomes.length > this.keep) {
      const dropped = this.outcomes.splice(0, this.outcomes.length - this.keep);
      for (const o of dropped) this.known.delete(o.entryIndex);
    }
  }
}

/**
 * A leader term's ledger: seeded from the queue and the store's finished-repair records, so a new leader (or a
 * restarted one) paces exactly as the old one did, outcomes already dequeued included. The term then feeds it commits.
 */
export function seededLedger(store: Pick<KintsugiStore, "entries" | "finished">, keep = KEPT_PACING_OUTCOMES): PacingLedger {
  const ledger = new PacingLedger(keep);
  ledger.seed(store.entries.list(), store.finished.list());
  return ledger;
}

function outcomeOf(entry: RepairEntry, time: number): LedgerOutcome {
  return {
    entryIndex: entry.index,
    address: entry.address,
    machineType: entry.machineType,
    status: entry.status as LedgerOutcome["status"],
    time,
    proof: proofOutcomeOf(entry),
  };
}

/** The pacing input of a pass over `entries`; null when pacing is off (no `repair.pacing`, or nothing wired). */
export function pacingInputOf(deps: Pick<RunnerDeps, "pacing" | "repair">, entries: readonly RepairEntry[]): PacingInput | null {
  const { pacing } = deps;
  const domains = deps.repair.pacing?.domains;
  if (!pacing || !domains) return null;
  return pacing.ledger.input(domains, entries, (address) => pacing.racks.rackOf(address));
}
