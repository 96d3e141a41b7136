import { isFinished, type RepairEntry } from "../domain/repair-entry.js";
import { proofOutcomeOf, type ProofOutcome } from "../domain/repair-evidence.js";
import type { FinishedOutcome, PacingDomain, PacingInput } from "../domain/repair-pacing.js";
import type { StoreCommit } from "../store/store-port.js";
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
 * queue, then fed by every commit that finishes an entry (on every replica, so a new leader paces as the old one).
 * Kept in memory and bounded, so a pass reads no history.
 */
export class PacingLedger {
  private outcomes: LedgerOutcome[] = [];
  private readonly known = new Set<number>();

  constructor(private readonly keep = KEPT_PACING_OUTCOMES) {}

  /** Adds the finished entries of `entries` not seen yet, by the time they finished (then index). */
  seed(entries: readonly RepairEntry[]): void {
    const finished = entries.filter((e) => isFinished(e) && !this.known.has(e.index));
    finished.sort((a, b) => (a.lastTransitionTime ?? 0) - (b.lastTransitionTime ?? 0) || a.index - b.index);
    for (const e of finished) this.add(e, e.lastTransitionTime ?? e.createdAt);
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
    const finished: FinishedOutcome[] = this.outcomes.map((o) => ({ entryIndex: o.entryIndex, machineType: o.machineType, rack: rackOf(o.address), status: o.status, time: o.time, ...(o.proof && { proof: o.proof }) }));
    return { domains, racks, finished };
  }

  private add(entry: RepairEntry, time: number): void {
    this.known.add(entry.index);
    this.outcomes.push({ entryIndex: entry.index, address: entry.address, machineType: entry.machineType, status: entry.status as LedgerOutcome["status"], time, proof: proofOutcomeOf(entry) });
    if (this.outcomes.length > this.keep) {
      const dropped = this.outcomes.splice(0, this.outcomes.length - this.keep);
      for (const o of dropped) this.known.delete(o.entryIndex);
    }
  }
}

/** The pacing input of a pass over `entries`; null when pacing is off (no `repair.pacing`, or nothing wired). */
export function pacingInputOf(deps: Pick<RunnerDeps, "pacing" | "repair">, entries: readonly RepairEntry[]): PacingInput | null {
  const { pacing } = deps;
  const domains = deps.repair.pacing?.domains;
  if (!pacing || !domains) return null;
  return pacing.ledger.input(domains, entries, (address) => pacing.racks.rackOf(address));
}
