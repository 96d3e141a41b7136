import { describeFailure } from "./command-outcome.js";
import type { RepairOperationConfig } from "./repair-config.js";
import { truncateToSeconds, type RepairEntry } from "./repair-entry.js";
import type { CommandAttempt } from "./repair-outcomes.js";
import type { EntryTransition } from "./repair-plan.js";
import { withoutCommand } from "./entry-command.js";

/** How much of each of the diagnostics command's stdout and stderr goes into the history (the tail). */
export const DIAGNOSTICS_OUTPUT_CHARS = 16 * 1024;

/**
 * Whether an entry about to start its step runs the operation's diagnostics command first, and the transition that
 * records it: only an entry that never started (still `queued`, step 1) of an operation with a diagnostics command.
 * The transition makes the entry `processing` (still `waiting`) and is committed before the command starts, so the
 * command runs at most once per entry: never on a later step, a retry, after a drain back-off, or after a restart
 * or failover (then the entry, already `processing`, goes on to its first drain or repair command).
 */
export function startDiagnostics(entry: RepairEntry, op: RepairOperationConfig, now: number): EntryTransition | null {
  if (!op.diagnosticsCommand || entry.status !== "queued" || entry.step !== 0) return null;
  const after: RepairEntry = { ...entry, status: "processing", stepStatus: "waiting", lastTransitionTime: truncateToSeconds(now) };
  return { after, kind: "transition", reason: `step ${entry.step + 1}: running the diagnostics command before the first drain or repair command` };
}

/**
 * The history note of a finished diagnostics command, with its output: a failure (non-zero exit, timeout, a command
 * that cannot start) is recorded and the repair goes on. An aborted command (the entry is being dequeued) adds
 * nothing. The entry itself does not change.
 */
export function afterDiagnostics(entry: RepairEntry, attempt: CommandAttempt): EntryTransition | null {
  const { outcome } = attempt;
  if (outcome.kind === "aborted") return null;
  const how = outcome.kind === "ok" ? "diagnostics command succeeded" : `diagnostics command failed (${describeFailure(outcome)}); the repair goes on`;
  return { after: withoutCommand(entry), kind: "note", reason: `step ${entry.step + 1}: ${how}`, detail: diagnosticsDetail(attempt) };
}

/** The command line and the tails of stdout and stderr, each at most DIAGNOSTICS_OUTPUT_CHARS, saying what was cut. */
export function diagnosticsDetail({ argv, outcome }: CommandAttempt): string {
  const parts = [`command: ${JSON.stringify(argv)}`];
  if ("stdout" in outcome) parts.push(`stdout:\n${boundedTail(outcome.stdout)}`);
  if ("stderr" in outcome && outcome.stderr !== "") parts.push(`stderr:\n${boundedTail(outcome.stderr)}`);
  return parts.join("\n");
}

function boundedTail(text: string): string {
  if (text.length <= DIAGNOSTICS_OUTPUT_CHARS) return text;
  return `[truncated: the first ${text.length - DIAGNOSTICS_OUTPUT_CHARS} characters are not kept]\n${text.slice(-DIAGNOSTICS_OUTPUT_CHARS)}`;
}
