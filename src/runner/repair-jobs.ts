import { randomBytes } from "node:crypto";
import { attemptStartNote, commandEnvironment, operationIdFor, type CommandAttemptIdentity } from "../domain/queue/command-context.js";
import { describeFailure } from "../domain/queue/command-outcome.js";
import type { RepairOperationConfig, RepairStepConfig } from "../domain/queue/repair-config.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import { cordonOwner } from "../domain/queue/stray-cordons.js";
import { afterDiagnostics } from "../domain/queue/diagnostics.js";
import { afterDrainFailure, afterRepairCommand, afterSuccessCommand, type CommandAttempt } from "../domain/queue/repair-outcomes.js";
import type { EntryTransition } from "../domain/queue/repair-plan.js";
import { commandStarted, COMMAND_START_WINDOW_SECONDS } from "../domain/queue/command-marker.js";
import type { EntryCommand } from "../domain/queue/command-marker.js";
import type { CommandOptions, CommandOutcome } from "../adapters/ports.js";
import { StoreBusyError } from "../store/store-errors.js";
import { abortableSleep } from "../support/abortable-sleep.js";
import { runDrainJob } from "./drain-job.js";
import type { RunnerDeps } from "./runner-deps.js";

/**
 * Commits a transition that a job decided, but only when the stored entry is still the one the job worked on
 * (same step, same step status, same transition time, not marked for deletion): a job never overwrites a change
 * made meanwhile, such as a deletion. The check and `decide` run inside the store's write (`entries.change`), so
 * nothing can change between the check and the write; resolves with the committed transition, or null for none.
 */
export type CommitIfUnchanged = (worked: RepairEntry, decide: (current: RepairEntry) => EntryTransition | null) => Promise<EntryTransition | null>;

/** How long a job's outcome waits, at most, for another process to release the database's write lock. */
export const OUTCOME_COMMIT_PATIENCE_MS = 60_000;
const OUTCOME_COMMIT_RETRY_MS = 100;

/**
 * Commits a job's outcome, trying again while another process holds the database's write lock (a backup, an
 * operator's sqlite3 shell): the command has run, and an outcome lost here would leave the entry to watch out its
 * step as if the command had worked, or to run its success command again. Other failures, and an abort (shutdown),
 * end it with the error.
 */
export async function commitOutcome(
  commit: CommitIfUnchanged,
  worked: RepairEntry,
  decide: (current: RepairEntry) => EntryTransition | null,
  signal: AbortSignal,
): Promise<EntryTransition | null> {
  for (let waited = 0; ; waited += OUTCOME_COMMIT_RETRY_MS) {
    try {
      return await commit(worked, decide);
    } catch (err) {
      if (!(err instanceof StoreBusyError) || waited >= OUTCOME_COMMIT_PATIENCE_MS) throw err;
      if (!(await abortableSleep(OUTCOME_COMMIT_RETRY_MS, signal))) throw err;
    }
  }
}

/** One attempt of an entry's command: which command, its try number, its timeout. */
interface AttemptToRun {
  readonly command: EntryCommand;
  readonly attempt: number;
  readonly timeoutSeconds: number;
}

/**
 * Gives one attempt of a command its operation id and commits the note naming it (kintsugi: and the entry's marker
 * of a started command) before the command starts, then runs it. A command whose start comes later than
 * COMMAND_START_WINDOW_SECONDS after the recorded one (the replica stalled between) is not started: the wait of a
 * replica inheriting it counts from the recorded start. Resolves with its outcome, or null when the entry changed
 * meanwhile (deleted, moved on by another writer): then the command did not run.
 */
async function runAttempt(
  deps: RunnerDeps,
  commit: CommitIfUnchanged,
  entry: RepairEntry,
  argv: readonly string[],
  run: AttemptToRun,
  signal: AbortSignal,
): Promise<CommandOutcome | null> {
  const identity: CommandAttemptIdentity = { attempt: run.attempt, operationId: operationIdFor(entry, run.attempt, randomBytes(4).toString("hex")) };
  const startedAt = deps.now();
  const marker = deps.fence && commandStarted(run.command, identity.operationId, deps.fence.owner, startedAt, run.timeoutSeconds);
  const noted = await commitOutcome(commit, entry, (current) => attemptStartNote(current, `${run.command} command`, identity, marker), signal);
  if (noted === null) return null;
  const late = deps.now() - startedAt;
  if (deps.fence && late > COMMAND_START_WINDOW_SECONDS * 1000) {
    return {
      kind: "spawn-error",
      message: `not started: ${late} ms passed between recording its start and starting it (at most ${COMMAND_START_WINDOW_SECONDS}s)`,
    };
  }
  const options: CommandOptions = {
    timeoutSeconds: run.timeoutSeconds,
    signal,
    env: commandEnvironment(entry, identity, deps.bmcs?.bmcOf(entry.address) ?? null),
  };
  return deps.commands.run(argv, options);
}

/** Resolves true once no hold is on the machine at `address`, false when `signal` aborts first (see HoldWatch). */
export type UntilReleased = (address: string, signal: AbortSignal) => Promise<boolean>;

/** One step's repair command to run: on `entry` as the job found it, committing through `commit`. */
export interface RepairCommandJob {
  readonly deps: RunnerDeps;
  readonly commit: CommitIfUnchanged;
  readonly entry: RepairEntry;
  readonly step: RepairStepConfig;
  readonly untilReleased: UntilReleased;
  readonly signal: AbortSignal;
}

/**
 * The repair command of one step, with its retries and interval; then the entry watches or fails. A retry waits
 * while the machine is held: a hold stops the step before its next command.
 */
export async function repairCommandJob({ deps, commit, entry, step, untilReleased, signal }: RepairCommandJob): Promise<EntryTransition | null> {
  const argv = [...step.repairCommand, entry.address];
  const attempts: CommandAttempt[] = [];
  for (let i = 0; i <= step.commandRetries; i++) {
    if (i > 0 && !(await abortableSleep(step.commandInterval * 1000, signal))) break;
    if (i > 0 && !(await untilReleased(entry.address, signal))) break;
    const outcome = await runAttempt(deps, commit, entry, argv, { command: "repair", attempt: i + 1, timeoutSeconds: step.commandTimeoutSeconds }, signal);
    if (outcome === null) return null;
    attempts.push({ argv, outcome });
    if (outcome.kind === "ok" || outcome.kind === "aborted") break;
    deps.log.warn("repair command failed", {
      index: entry.index,
      address: entry.address,
      attempt: i + 1,
      outcome: outcome.kind,
      why: describeFailure(outcome),
    });
  }
  if (signal.aborted) return null;
  return commitOutcome(commit, entry, (current) => afterRepairCommand(current, attempts, deps.now()), signal);
}

/** The success command (when configured) of a machine found healthy; then the entry succeeds or fails. */
export async function successCommandJob(
  deps: RunnerDeps,
  commit: CommitIfUnchanged,
  entry: RepairEntry,
  op: RepairOperationConfig,
  signal: AbortSignal,
): Promise<EntryTransition | null> {
  let attempt: CommandAttempt | null = null;
  if (op.successCommand) {
    const argv = [...op.successCommand, entry.address];
    const outcome = await runAttempt(deps, commit, entry, argv, { command: "success", attempt: 1, timeoutSeconds: op.successCommandTimeout }, signal);
    if (outcome === null) return null;
    attempt = { argv, outcome };
    if (outcome.kind !== "ok" && outcome.kind !== "aborted") {
      deps.log.warn("success command failed", { index: entry.index, address: entry.address, outcome: outcome.kind, why: describeFailure(outcome) });
    }
  }
  if (signal.aborted) return null;
  return commitOutcome(commit, entry, (current) => afterSuccessCommand(current, attempt, deps.now()), signal);
}

/**
 * The operation's diagnostics command, once, before the entry's first drain or repair command: its output, or its
 * failure, goes into the history as a note, and the next pass goes on with the step whatever happened.
 */
export async function diagnosticsJob(
  deps: RunnerDeps,
  commit: CommitIfUnchanged,
  entry: RepairEntry,
  op: RepairOperationConfig,
  signal: AbortSignal,
): Promise<EntryTransition | null> {
  if (!op.diagnosticsCommand) return null;
  const argv = [...op.diagnosticsCommand, entry.address];
  const outcome = await runAttempt(
    deps,
    commit,
    entry,
    argv,
    { command: "diagnostics", attempt: 1, timeoutSeconds: op.diagnosticsTimeoutSeconds ?? 30 },
    signal,
  );
  if (outcome === null) return null;
  if (signal.aborted) return null;
  if (outcome.kind !== "ok" && outcome.kind !== "aborted") {
    deps.log.warn("diagnostics command failed; repairing anyway", { index: entry.index, outcome: outcome.kind, why: describeFailure(outcome) });
  }
  return commitOutcome(commit, entry, (current) => afterDiagnostics(current, { argv, outcome }), signal);
}

/** The eviction job of a drain; a failure backs the entry off. Returns "started" when every removal started. */
export async function drainJob(
  deps: RunnerDeps,
  commit: CommitIfUnchanged,
  entry: RepairEntry,
  signal: AbortSignal,
): Promise<"started" | EntryTransition | null> {
  if (!deps.nodes) return "started";
  const result = await runDrainJob(deps.nodes, deps.repair, entry.nodename, cordonOwner(entry.index), signal);
  if (result.kind === "started") return "started";
  if (result.kind === "aborted" || signal.aborted) return null;
  deps.log.warn("drain failed", { index: entry.index, node: entry.nodename, why: result.why });
  return commitOutcome(commit, entry, (current) => afterDrainFailure(current, result.why, deps.now(), deps.random), signal);
}
