import { isWaitingForBackoff } from "./drain-backoff.js";
import type { RepairOperationConfig } from "./repair-config.js";
import { isFinished, truncateToSeconds, type RepairEntry } from "./repair-entry.js";
import type { EntryTransition, RepairAction, RepairObservation, RepairPlan, RepairSnapshot } from "./repair-plan.js";
import { continueDrain, continueWatch, startStep, type Progress, type ProgressContext } from "./repair-progress.js";

const NO_OBSERVATION: RepairObservation = { nodename: "", job: "none", drainJobDone: false };

function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/**
 * CKE's repair queue decision for one pass (see semantics/repair-queue.md), as data: which entries change how, and
 * what to do after each change is committed. In order:
 * 1. a deleted entry is dequeued, whatever else holds;
 * 2. an entry whose procedure or operation is missing fails at once (kintsugi) and takes no slot;
 * 3. an entry whose health check said healthy succeeds (through the success command), with no concurrency limit;
 * 4. the rest walk processing entries first, then queued, in index order: at most `max_concurrent_repairs` are in
 *    progress, an entry waiting for its drain back-off takes no slot, and one machine is never repaired by two
 *    entries at once (kintsugi); each in progress moves on by its step status.
 * An entry with a job running in this process is left to that job, except to be dequeued or to abandon a drain.
 * `now` is milliseconds since the epoch; `random` returns [0, 1) for the back-off jitter.
 */
export function decideRepairActions(snapshot: RepairSnapshot, now: number, random: () => number): RepairPlan {
  const actions: RepairAction[] = [];
  let wakeAt: number | null = null;
  const ctx: ProgressContext = { now, random, queueEnabled: snapshot.queueEnabled, evictionTimeoutSeconds: snapshot.repair.evictionTimeoutSeconds };
  const observe = (e: RepairEntry) => snapshot.observations.get(e.index) ?? NO_OBSERVATION;

  const contenders: RepairEntry[] = [];
  for (const entry of snapshot.entries) {
    if (entry.deleted) {
      actions.push({ entry, transitions: [], effect: { kind: "dequeue" } });
      continue;
    }
    if (isFinished(entry)) continue;
    const obs = observe(entry);
    const renamed = renamedTransitions(entry, obs);
    const current = renamed[0]?.after ?? entry;
    const lookup = snapshot.repair.lookup(current);
    if ("message" in lookup) {
      const after: RepairEntry = { ...current, status: "failed", lastTransitionTime: truncateToSeconds(now) };
      actions.push({ entry, transitions: [...renamed, { after, kind: "transition", reason: lookup.message }], effect: { kind: "uncordon" } });
      continue;
    }
    if (obs.job === "none" && obs.healthy === true) {
      actions.push({ entry, transitions: renamed, effect: { kind: "success-command", operation: lookup.operation } });
      continue;
    }
    contenders.push(entry);
  }

  const ordered = [...contenders.filter((e) => e.status === "processing"), ...contenders.filter((e) => e.status === "queued")];
  const busy = new Set<string>();
  let inProgress = 0;
  for (const entry of ordered) {
    if (isWaitingForBackoff(entry, now)) {
      wakeAt = earliest(wakeAt, entry.drainBackoffExpire);
      continue;
    }
    if (busy.has(entry.address) || inProgress >= snapshot.repair.maxConcurrentRepairs) continue;
    busy.add(entry.address);
    inProgress++;
    const obs = observe(entry);
    const renamed = renamedTransitions(entry, obs);
    const current = renamed[0]?.after ?? entry;
    const lookup = snapshot.repair.lookup(current);
    if ("message" in lookup) continue;
    const progress = progressOf(current, lookup.operation, obs, ctx, renamed);
    if (progress.transitions.length > 0 || progress.effect.kind !== "none") {
      actions.push({ entry, transitions: progress.transitions, effect: progress.effect });
    }
    wakeAt = earliest(wakeAt, progress.wakeAt);
  }
  return { actions, wakeAt };
}

function progressOf(entry: RepairEntry, op: RepairOperationConfig, obs: RepairObservation, ctx: ProgressContext, renamed: EntryTransition[]): Progress {
  if (obs.job === "repair-command" || obs.job === "success-command") return { transitions: renamed, effect: { kind: "none" }, wakeAt: null };
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

/** When the machine's node name changed since the entry was stored, a note recording the new name. */
function renamedTransitions(entry: RepairEntry, obs: RepairObservation): EntryTransition[] {
  if (obs === NO_OBSERVATION || obs.nodename === entry.nodename) return [];
  const reason = obs.nodename === "" ? `no Kubernetes node has address ${entry.address} now` : `the machine is Kubernetes node ${obs.nodename}`;
  return [{ after: { ...entry, nodename: obs.nodename }, kind: "note", reason }];
}
