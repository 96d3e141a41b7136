import { startDiagnostics } from "./diagnostics.js";
import { drainBackoff } from "./drain-backoff.js";
import type { RepairOperationConfig } from "./repair-config.js";
import { truncateToSeconds, type RepairEntry } from "./repair-entry.js";
import type { EntryTransition, RepairEffect, RepairObservation } from "./repair-plan.js";
import { commandDue, type CommandOwner } from "./command-marker.js";
import { inheritedTransition } from "./entry-command.js";

/** The outcome of moving one entry forward: transitions so far, the effect, and when to look again. */
export interface Progress {
  readonly transitions: EntryTransition[];
  readonly effect: RepairEffect;
  readonly wakeAt: number | null;
}

export interface ProgressContext {
  readonly now: number;
  readonly random: () => number;
  readonly queueEnabled: boolean;
  readonly evictionTimeoutSeconds: number;
  /** Who decides (kintsugi): a repair command it decides to run is marked due with it; absent: not marked. */
  readonly owner?: CommandOwner;
}

const step = (e: RepairEntry) => e.step + 1;

function failed(entry: RepairEntry, now: number, reason: string, transitions: EntryTransition[]): Progress {
  const after: RepairEntry = { ...entry, status: "failed", lastTransitionTime: truncateToSeconds(now) };
  return { transitions: [...transitions, { after, kind: "transition", reason }], effect: { kind: "uncordon" }, wakeAt: null };
}

/**
 * How an entry in progress moves on this pass, by its step status, `renamed` (its new node name, inherited command
 * notes) first: a job of this process that runs a command is left to it, and so is any job of a waiting or watching
 * entry; an inherited command that never started runs now (with the queue enabled).
 */
export function progressOf(entry: RepairEntry, op: RepairOperationConfig, obs: RepairObservation, ctx: ProgressContext, renamed: EntryTransition[]): Progress {
  if (obs.job === "repair-command" || obs.job === "success-command") return { transitions: renamed, effect: { kind: "none" }, wakeAt: null };
  if (obs.inherited?.kind === "never-started" && obs.job === "none" && ctx.queueEnabled)
    return runNeverStarted(entry, op, ctx, [...renamed, inheritedTransition(entry, obs.inherited, ctx.now)]);
  switch (entry.stepStatus) {
    case "waiting":
      if (obs.job !== "none") return { transitions: renamed, effect: { kind: "none" }, wakeAt: null };
      return startStep(entry, op, obs, ctx, renamed);
    case "draining":
      return continueDrain(entry, op, obs, ctx, renamed);
    case "watching":
      if (obs.job !== "none") return { transitions: renamed, effect: { kind: "none" }, wakeAt: null };
      return withPrefix(renamed, continueWatch(entry, op, obs, ctx));
  }
}

function withPrefix(prefix: EntryTransition[], progress: Progress): Progress {
  return prefix.length === 0 ? progress : { ...progress, transitions: [...prefix, ...progress.transitions] };
}

/**
 * A `waiting` entry (new, next step, or back-off expired): with the queue enabled, drain first when the step needs
 * it and the machine is a node, else persist `watching` and run the repair command. Disabled: nothing.
 */
export function startStep(
  entry: RepairEntry,
  op: RepairOperationConfig,
  obs: RepairObservation,
  ctx: ProgressContext,
  transitions: EntryTransition[] = [],
): Progress {
  const config = op.repairSteps[entry.step];
  if (!config) return failed(entry, ctx.now, `step ${step(entry)} does not exist: operation "${op.operation}" has ${op.repairSteps.length} steps`, transitions);
  if (!ctx.queueEnabled) return { transitions, effect: { kind: "none" }, wakeAt: null };
  const diagnostics = startDiagnostics(entry, op, ctx.now);
  if (diagnostics) return { transitions: [...transitions, diagnostics], effect: { kind: "diagnostics", operation: op }, wakeAt: null };
  const lastTransitionTime = truncateToSeconds(ctx.now);
  if (config.needDrain && obs.nodename !== "") {
    const after: RepairEntry = { ...entry, status: "processing", stepStatus: "draining", lastTransitionTime };
    const reason = `step ${step(entry)}: draining node ${obs.nodename}`;
    return {
      transitions: [...transitions, { after, kind: "transition", reason }],
      effect: { kind: "drain" },
      wakeAt: evictionDeadline(after, ctx) + 1,
    };
  }
  const after: RepairEntry = { ...entry, status: "processing", stepStatus: "watching", lastTransitionTime, ...due(config, ctx) };
  const reason = `step ${step(entry)}: running the repair command`;
  return { transitions: [...transitions, { after, kind: "transition", reason }], effect: { kind: "repair-command", step: config }, wakeAt: null };
}

/** The command marker of a repair command decided now (kintsugi), when the context names who decides. */
function due(config: { readonly commandTimeoutSeconds: number }, ctx: ProgressContext): Pick<RepairEntry, "command"> {
  return ctx.owner ? { command: commandDue(ctx.owner, config.commandTimeoutSeconds) } : {};
}

/**
 * kintsugi: a `watching` entry whose repair command was decided but never started (the replica that was to run it
 * stopped first): the step's command runs now, and its watch counts from now.
 */
export function runNeverStarted(entry: RepairEntry, op: RepairOperationConfig, ctx: ProgressContext, transitions: EntryTransition[]): Progress {
  const config = op.repairSteps[entry.step];
  if (!config) return failed(entry, ctx.now, `step ${step(entry)} does not exist`, transitions);
  const after: RepairEntry = { ...entry, status: "processing", stepStatus: "watching", lastTransitionTime: truncateToSeconds(ctx.now), ...due(config, ctx) };
  return {
    transitions: [...transitions, { after, kind: "transition", reason: `step ${step(entry)}: running the repair command` }],
    effect: { kind: "repair-command", step: config },
    wakeAt: null,
  };
}

/**
 * A `draining` entry: disabled -> abandon (back-off); completed (or no longer a node) -> run the step;
 * `last_transition_time + eviction_timeout_seconds < now` -> back-off; otherwise wait (re-running the eviction job
 * when this process has not, e.g. after a restart).
 */
export function continueDrain(
  entry: RepairEntry,
  op: RepairOperationConfig,
  obs: RepairObservation,
  ctx: ProgressContext,
  transitions: EntryTransition[] = [],
): Progress {
  const drained = obs.job !== "drain" && (obs.nodename === "" || (obs.drainJobDone && obs.drainCompleted === true));
  if (ctx.queueEnabled && drained) {
    const config = op.repairSteps[entry.step];
    if (!config) return failed(entry, ctx.now, `step ${step(entry)} does not exist`, transitions);
    const after: RepairEntry = { ...entry, status: "processing", stepStatus: "watching", lastTransitionTime: truncateToSeconds(ctx.now), ...due(config, ctx) };
    const why = obs.nodename === "" ? "the machine is no longer a node" : "drain completed";
    return {
      transitions: [...transitions, { after, kind: "transition", reason: `step ${step(entry)}: ${why}; running the repair command` }],
      effect: { kind: "repair-command", step: config },
      wakeAt: null,
    };
  }
  const stop = drainStopOf(entry, ctx, transitions);
  if (stop) return stop;
  const effect: RepairEffect = obs.job === "none" && !obs.drainJobDone ? { kind: "drain" } : { kind: "none" };
  return { transitions, effect, wakeAt: evictionDeadline(entry, ctx) + 1 };
}

/**
 * A `watching` entry: when `watch_seconds` is 0 or `last_transition_time + watch_seconds < now`, move to the next
 * step and handle it at once; past the last step the entry fails. Disabled: the move happens, nothing runs.
 */
export function continueWatch(entry: RepairEntry, op: RepairOperationConfig, obs: RepairObservation, ctx: ProgressContext): Progress {
  const config = op.repairSteps[entry.step];
  const watchSeconds = config?.watchSeconds ?? 0;
  const expiry = (entry.lastTransitionTime ?? 0) + watchSeconds * 1000;
  if (watchSeconds > 0 && !(expiry < ctx.now)) return { transitions: [], effect: { kind: "none" }, wakeAt: expiry + 1 };
  const watched = watchSeconds > 0 ? ` after watching ${watchSeconds}s` : "";
  if (entry.step + 1 >= op.repairSteps.length) {
    return failed(entry, ctx.now, `still unhealthy${watched} after the last step (${op.repairSteps.length})`, []);
  }
  const next: RepairEntry = { ...entry, status: "processing", step: entry.step + 1, stepStatus: "waiting", lastTransitionTime: truncateToSeconds(ctx.now) };
  const moved: EntryTransition = { after: next, kind: "transition", reason: `still unhealthy${watched}; moving to step ${step(next)}` };
  return startStep(next, op, obs, ctx, [moved]);
}

/**
 * The ways a `draining` entry stops draining without moving on: abandoned while the queue is disabled, or backing
 * off once `eviction_timeout_seconds` have passed. null while neither applies. These apply also to an entry a
 * control-plane rule holds: a hold stops a drain from moving on, never from stopping.
 */
export function drainStopOf(entry: RepairEntry, ctx: ProgressContext, transitions: EntryTransition[] = []): Progress | null {
  if (entry.stepStatus !== "draining") return null;
  if (!ctx.queueEnabled) return abandonedDrain(entry, ctx, transitions);
  return evictionDeadline(entry, ctx) < ctx.now ? timedOutDrain(entry, ctx, transitions) : null;
}

/**
 * The end of a draining entry's `eviction_timeout_seconds`, counted from the transition that started the drain; the
 * drain backs off once `now` is strictly past it, so a pass is due at `evictionDeadline + 1`.
 */
export function evictionDeadline(entry: RepairEntry, ctx: Pick<ProgressContext, "evictionTimeoutSeconds">): number {
  return (entry.lastTransitionTime ?? 0) + ctx.evictionTimeoutSeconds * 1000;
}

function abandonedDrain(entry: RepairEntry, ctx: ProgressContext, transitions: EntryTransition[]): Progress {
  const after = drainBackoff(entry, ctx.now, ctx.random);
  return {
    transitions: [...transitions, { after, kind: "transition", reason: "drain abandoned: the repair queue is disabled" }],
    effect: { kind: "abandon-drain" },
    wakeAt: after.drainBackoffExpire,
  };
}

function timedOutDrain(entry: RepairEntry, ctx: ProgressContext, transitions: EntryTransition[]): Progress {
  const after = drainBackoff(entry, ctx.now, ctx.random);
  const reason = `drain timed out after ${ctx.evictionTimeoutSeconds}s; backing off until ${new Date(after.drainBackoffExpire ?? 0).toISOString()}`;
  return { transitions: [...transitions, { after, kind: "transition", reason }], effect: { kind: "abandon-drain" }, wakeAt: after.drainBackoffExpire };
}
