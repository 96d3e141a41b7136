import type { CommandMarker, CommandOwner, InheritedCommand } from "./command-marker.js";
import type { RepairEntry } from "./repair-entry.js";
import type { EntryTransition, RunningJob } from "./repair-plan.js";
import type { WaitingFor } from "./repair-wait.js";

/** `entry` without its command marker (the outcome of its command is recorded). */
export function withoutCommand(entry: RepairEntry): RepairEntry {
  if (entry.command === undefined) return entry;
  const { command: _ended, ...rest } = entry;
  return rest;
}

/**
 * The fence of a machine against a command another replica (or an earlier run of this one) started: `job` is what
 * this process runs for the entry, `self` this process, `marginSeconds` how long past its timeout a command counts
 * as possibly running (see MIN_INHERITED_COMMAND_MARGIN_SECONDS: the kill grace, the backstop's slack, the start
 * window, and the skew between the two replicas' clocks). null: no marker, or this process's own command runs.
 * A command this run started is known to have ended once its job is gone (the job ends after its command's group).
 */
export function inheritedCommand(entry: RepairEntry, job: RunningJob, self: CommandOwner, marginSeconds: number, now: number): InheritedCommand | null {
  const marker = entry.command;
  if (marker === undefined || (job !== "none" && job !== "drain")) return null;
  if (marker.operationId === null || marker.startedAt === null) return { kind: "never-started", marker };
  if (marker.run === self.run && marker.replica === self.replica) return { kind: "interrupted", marker, until: null };
  if (!(marker.timeoutSeconds > 0)) return { kind: "may-run", marker, until: null };
  const until = marker.startedAt + (marker.timeoutSeconds + marginSeconds) * 1000;
  return now < until ? { kind: "may-run", marker, until } : { kind: "interrupted", marker, until };
}

const iso = (ms: number) => new Date(ms).toISOString();

function started(entry: RepairEntry, marker: CommandMarker): string {
  const step = marker.command === "repair" ? `step ${entry.step + 1}: its repair command` : `its ${marker.command} command`;
  return `${step} (operation id ${marker.operationId}), started by replica ${JSON.stringify(marker.replica)} at ${iso(marker.startedAt ?? 0)}`;
}

/** Why an entry whose inherited command may run waits: who started it, when, until when, or what a person must do. */
export function waitForInheritedCommand(entry: RepairEntry, state: Extract<InheritedCommand, { kind: "may-run" }>, marginSeconds: number): WaitingFor {
  const what = started(entry, state.marker);
  const message =
    state.until === null
      ? `${what}, has no timeout (command_timeout_seconds 0) and may still be running: kintsugi cannot know when it ends, so nothing runs on machine ${entry.address}. Once it has certainly ended, delete this entry (kintsugi repair-queue delete ${entry.index}) and add it again`
      : `${what}, may still be running: nothing runs on machine ${entry.address} until ${iso(state.until)} (its timeout of ${state.marker.timeoutSeconds}s and a margin of ${marginSeconds}s)`;
  return { kind: "COMMAND", message, until: state.until, domain: null };
}

/**
 * Why a deleted entry whose inherited command may run stays in the queue: it leaves once the command has certainly
 * ended, and keeps its machine (and its slot and control-plane turn) until then, as it would undeleted. A command
 * with no timeout is never waited for: deleting the entry is how the operator says it has ended.
 */
export function waitForDeletedWithInheritedCommand(
  entry: RepairEntry,
  state: Extract<InheritedCommand, { kind: "may-run" }>,
  marginSeconds: number,
): WaitingFor {
  const { message, ...rest } = waitForInheritedCommand(entry, state, marginSeconds);
  return { ...rest, message: `${DELETED_BUT_FENCED}: ${message}` };
}

/** How the wait of a deleted entry that stays for its inherited command begins; a deleted entry waits for nothing else. */
export const DELETED_BUT_FENCED = "deleted; it leaves the queue once its command has certainly ended";

/** Whether `wait` is one a deleted entry has (see waitForDeletedWithInheritedCommand): any other is from before its deletion. */
export function isDeletedEntryWait(wait: Pick<WaitingFor, "message"> | null): boolean {
  return wait !== null && wait.message.startsWith(`${DELETED_BUT_FENCED}: `);
}

/**
 * What the history says of an inherited command that is over or never started, and what kintsugi does about it: an
 * interrupted repair command is not run again (its outcome is unknown) and the step watches from `now`; an
 * interrupted success or diagnostics command leaves the entry to go on; a repair command that never started runs now.
 */
export function inheritedTransition(entry: RepairEntry, state: Exclude<InheritedCommand, { kind: "may-run" }>, now: number): EntryTransition {
  const { marker } = state;
  const after = withoutCommand(entry);
  if (state.kind === "never-started") {
    const reason = `step ${entry.step + 1}: its repair command never started (replica ${JSON.stringify(marker.replica)}, which was to run it, stopped first); running it now`;
    return { after: entry, kind: "note", reason };
  }
  const over =
    state.until === null
      ? "ended on this replica without its outcome being recorded"
      : `was interrupted; nothing ran on the machine until ${iso(state.until)}, when it had certainly ended`;
  if (marker.command !== "repair") return { after, kind: "note", reason: `${started(entry, marker)}, ${over}; the entry goes on` };
  const watching = { ...after, lastTransitionTime: Math.floor(now / 1000) * 1000 };
  return { after: watching, kind: "transition", reason: `${started(entry, marker)}, ${over}: its outcome is unknown, it is not run again; watching from now` };
}
