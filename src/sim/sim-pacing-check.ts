import { isWaitingForBackoff } from "../domain/queue/drain-backoff.js";
import type { PacingDomain } from "../domain/pacing/repair-pacing.js";
import { isFinished, type RepairEntry } from "../domain/queue/repair-entry.js";
import type { Checks } from "./sim-checks.js";
import type { SimWorld } from "./sim-world.js";

interface Outcome {
  readonly index: number;
  readonly time: number;
  readonly machineType: string;
  readonly address: string;
  /** null: a success that does not count (its required proof missing); true: a proven success; false: a failure. */
  readonly success: boolean | null;
}

/**
 * Slow start by failure domain (`repair.pacing`), checked at every start of a queued entry: the entries in progress
 * in each of its domains, itself included, are at most the domain's allowance, which starts at 1, doubles with each
 * proven success there (up to max_concurrent_repairs) and falls back to 1 with each failure. The simulator folds the
 * allowance itself from the entries it saw finish, in the order they finished and in the order a new leader reads
 * them back (by time, then index), and allows the larger. Entries in progress are those processing, not waiting out a
 * back-off and not found healthy by the pass that starts this one (it finishes there); control planes are left out
 * (one may have given its turn up, and holds nothing then).
 */
export class PacingInvariant {
  private readonly outcomes: Outcome[] = [];

  constructor(
    private readonly checks: Checks,
    private readonly world: SimWorld,
    private readonly domains: readonly PacingDomain[],
    /** The rack kintsugi knows for a machine (what it learnt from sabakan); null: not paced by rack. */
    private readonly rackOf: (address: string) => number | null,
    private readonly maxConcurrentRepairs: () => number,
    /** The entry's machine was found healthy by every signal in the pass deciding now: it finishes, and holds no place. */
    private readonly finishing: (index: number) => boolean,
  ) {}

  /** A committed change that finished an entry (its previous state unfinished). */
  finished(entry: RepairEntry, time: number): void {
    const proven = entry.evidence === undefined || entry.evidence.provenAt !== null;
    this.outcomes.push({
      index: entry.index,
      time,
      machineType: entry.machineType,
      address: entry.address,
      success: entry.status === "failed" ? false : proven ? true : null,
    });
  }

  private valueOf(domain: PacingDomain, e: { readonly machineType: string; readonly address: string }): string | null {
    if (domain === "machine_type") return e.machineType;
    const rack = this.rackOf(e.address);
    return rack === null ? null : String(rack);
  }

  private allowance(domain: PacingDomain, value: string, ordered: readonly Outcome[]): number {
    const max = Math.max(1, this.maxConcurrentRepairs());
    let allowance = 1;
    for (const o of ordered) {
      if (o.success === null || this.valueOf(domain, o) !== value) continue;
      allowance = o.success ? Math.min(max, allowance * 2) : 1;
    }
    return allowance;
  }

  /** `entry` went from queued to processing at `now`; `entries` are every entry as committed, itself included. */
  starts(entry: RepairEntry, entries: ReadonlyMap<number, RepairEntry>, now: number): void {
    const sorted = [...this.outcomes].sort((a, b) => a.time - b.time || a.index - b.index);
    for (const domain of this.domains) {
      const value = this.valueOf(domain, entry);
      if (value === null) continue;
      const others: number[] = [];
      for (const e of entries.values()) {
        if (e.index === entry.index || isFinished(e) || e.deleted || e.status !== "processing" || isWaitingForBackoff(e, now) || this.finishing(e.index))
          continue;
        if (this.world.at(e.address)?.role === "control-plane") continue;
        if (this.valueOf(domain, e) === value) others.push(e.index);
      }
      const inProgress = 1 + others.length;
      const allowance = Math.max(this.allowance(domain, value, this.outcomes), this.allowance(domain, value, sorted));
      this.checks.check(
        "pacing-allowance",
        inProgress <= allowance,
        () =>
          `entry ${entry.index} started with ${inProgress} entries in progress in ${domain} ${value} (entries ${[entry.index, ...others].join(", ")}), whose allowance is ${allowance}`,
        entry.address,
        entry.index,
      );
    }
  }
}
