import type { RepairEntry } from "../domain/queue/repair-entry.js";

/** What an entry was when its health was checked: a verdict holds only while none of it has changed. */
function stateOf(entry: RepairEntry): string {
  return `${entry.status}/${entry.step}/${entry.stepStatus}/${entry.lastTransitionTime ?? ""}/${entry.drainBackoffCount}`;
}

interface Verdict {
  readonly at: number;
  readonly state: string;
  readonly healthy: boolean;
}

/**
 * The health checks' verdicts, kept so that an entry's check runs at most once per runner interval however often
 * the runner passes (every change wakes it: 300 adds at once used to run 300 checks in each of up to 300 passes, a
 * process each). A verdict is reused only while it is younger than the interval and its entry has not moved since
 * (a new step, status, transition or back-off: CKE's health check at every step; a drain or command starts with a
 * transition). The runner checks again, in the same pass, every entry whose reused verdict would start a drain or
 * command (see RepairRunner), so nothing disruptive is ever decided on a kept verdict.
 */
export class HealthVerdicts {
  private readonly kept = new Map<number, Verdict>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  /** The entry's kept verdict if it still holds, else undefined (its health must be checked). */
  fresh(entry: RepairEntry): boolean | undefined {
    const verdict = this.kept.get(entry.index);
    if (verdict === undefined) return undefined;
    if (this.now() - verdict.at >= this.intervalMs || verdict.state !== stateOf(entry)) {
      this.kept.delete(entry.index);
      return undefined;
    }
    return verdict.healthy;
  }

  /** Keeps the verdict of a check of `entry` that just ended. */
  record(entry: RepairEntry, healthy: boolean): void {
    this.kept.set(entry.index, { at: this.now(), state: stateOf(entry), healthy });
  }

  /** Keeps only the verdicts of `live` entries (the unfinished ones): memory follows the queue. */
  retain(live: ReadonlySet<number>): void {
    for (const index of this.kept.keys()) if (!live.has(index)) this.kept.delete(index);
  }
}
