import type { RepairEntry } from "../domain/queue/repair-entry.js";

/**
 * What an entry was when its health was checked, with its jobs' generation (JobRegistry.generation): a verdict holds
 * only while none of it has changed. A command that ran while the entry stayed where it was (its start is a note, not
 * a transition) changes the generation, so a verdict from before the command never speaks for the machine after it.
 */
function stateOf(entry: RepairEntry, jobGeneration: number): string {
  return `${entry.status}/${entry.step}/${entry.stepStatus}/${entry.lastTransitionTime ?? ""}/${entry.drainBackoffCount}/${jobGeneration}`;
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
 * transition; a job's start or end changes the generation). The runner checks again, in the same pass, every entry
 * the decision would act on (see decideOnFreshHealth), so nothing is ever decided on a kept verdict: a kept verdict
 * only lets a pass that decides nothing for the entry skip its check.
 */
export class HealthVerdicts {
  private readonly kept = new Map<number, Verdict>();

  constructor(
    private readonly intervalMs: number,
    private readonly now: () => number,
  ) {}

  /** The entry's kept verdict if it still holds, else undefined (its health must be checked). */
  fresh(entry: RepairEntry, jobGeneration: number): boolean | undefined {
    const verdict = this.kept.get(entry.index);
    if (verdict === undefined) return undefined;
    if (this.now() - verdict.at >= this.intervalMs || verdict.state !== stateOf(entry, jobGeneration)) {
      this.kept.delete(entry.index);
      return undefined;
    }
    return verdict.healthy;
  }

  /** Keeps the verdict of a check of `entry` that just ended; `jobGeneration` is its jobs' as the check started. */
  record(entry: RepairEntry, healthy: boolean, jobGeneration: number): void {
    this.kept.set(entry.index, { at: this.now(), state: stateOf(entry, jobGeneration), healthy });
  }

  /** Keeps only the verdicts of `live` entries (the unfinished ones): memory follows the queue. */
  retain(live: ReadonlySet<number>): void {
    for (const index of this.kept.keys()) if (!live.has(index)) this.kept.delete(index);
  }
}
