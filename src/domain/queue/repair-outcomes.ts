import { describeFailure, outcomeDetail, type CommandOutcome } from "./command-outcome.js";
import { drainBackoff } from "./drain-backoff.js";
import { truncateToSeconds, type RepairEntry } from "./repair-entry.js";
import type { EntryTransition } from "./repair-plan.js";
import { withoutCommand } from "./entry-command.js";

/** One attempt at a command: its argv (address appended) and how it ended. */
export interface CommandAttempt {
  readonly argv: readonly string[];
  readonly outcome: CommandOutcome;
}

/**
 * After a step's repair command: success (on any attempt) leaves the entry watching and notes it; when every
 * attempt failed the entry finishes `failed`, its reason ending with the tail of the last attempt's stderr (see
 * stderrTail) and its history's detail holding the output. An aborted command (the entry is being dequeued) changes
 * nothing.
 */
export function afterRepairCommand(worked: RepairEntry, attempts: readonly CommandAttempt[], now: number): EntryTransition | null {
  // Its outcome is recorded: the command no longer counts as possibly running (see entry-command.ts).
  const entry = withoutCommand(worked);
  const last = attempts.at(-1);
  if (!last || last.outcome.kind === "aborted") return null;
  const tries = attempts.length === 1 ? "" : ` (attempt ${attempts.length})`;
  if (last.outcome.kind === "ok") {
    return {
      after: entry,
      kind: "note",
      reason: `step ${entry.step + 1}: repair command succeeded${tries}; watching`,
      detail: outcomeDetail(last.argv, last.outcome),
    };
  }
  const after: RepairEntry = { ...entry, status: "failed", lastTransitionTime: truncateToSeconds(now) };
  const count = attempts.length === 1 ? "" : ` on all ${attempts.length} attempts`;
  return {
    after,
    kind: "transition",
    reason: `step ${entry.step + 1}: repair command failed${count}: ${describeFailure(last.outcome)}`,
    detail: outcomeDetail(last.argv, last.outcome),
  };
}

/**
 * After the machine was found healthy: the entry finishes `succeeded`, unless the success command failed or timed
 * out, which makes it `failed` (CKE). `attempt` is null when the operation has no success command.
 */
export function afterSuccessCommand(worked: RepairEntry, attempt: CommandAttempt | null, now: number): EntryTransition | null {
  const entry = withoutCommand(worked);
  const lastTransitionTime = truncateToSeconds(now);
  if (attempt === null)
    return { after: { ...entry, status: "succeeded", lastTransitionTime }, kind: "transition", reason: "the health check reports the machine healthy" };
  if (attempt.outcome.kind === "aborted") return null;
  if (attempt.outcome.kind === "ok") {
    return {
      after: { ...entry, status: "succeeded", lastTransitionTime },
      kind: "transition",
      reason: "the health check reports the machine healthy; success command succeeded",
      detail: outcomeDetail(attempt.argv, attempt.outcome),
    };
  }
  return {
    after: { ...entry, status: "failed", lastTransitionTime },
    kind: "transition",
    reason: `healthy, but the success command failed: ${describeFailure(attempt.outcome)}`,
    detail: outcomeDetail(attempt.argv, attempt.outcome),
  };
}

/** After the eviction job failed (dry run refused, a protected Job pod, an eviction error): back off. */
export function afterDrainFailure(entry: RepairEntry, why: string, now: number, random: () => number): EntryTransition {
  const after = drainBackoff(entry, now, random);
  const until = new Date(after.drainBackoffExpire ?? now).toISOString();
  return { after, kind: "transition", reason: `drain failed: ${why}; backing off (count ${after.drainBackoffCount}) until ${until}` };
}
