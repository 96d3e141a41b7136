import { turnRank, yieldedProgress, yieldsTurn } from "./control-plane-turn.js";
import { controlPlaneHold, indexControlPlanes, type ControlPlane, type ControlPlaneIndex } from "./control-planes.js";
import { isWaitingForBackoff } from "./drain-backoff.js";
import { etcdNotGoodForRepair, frozenPlan } from "./etcd-quorum.js";
import type { RepairOperationConfig } from "./repair-config.js";
import { isFinished, truncateToSeconds, type RepairEntry } from "./repair-entry.js";
import { pacingGate } from "../pacing/repair-pacing.js";
import { finishHealthy, holdWhileDwelling } from "./healthy-finish.js";
import { judgeProof, withBootIdRecorded, type ProofVerdict } from "./proof-judgement.js";
import {
  waitForBackoff,
  waitForCommand,
  waitForControlPlane,
  waitForHold,
  waitForMachine,
  waitForPacing,
  waitForSlot,
  type WaitingFor,
} from "./repair-wait.js";
import { isCheckable, type EntryTransition, type RepairAction, type RepairObservation, type RepairPlan, type RepairSnapshot } from "./repair-plan.js";
import { progressWait } from "./progress-wait.js";
import { withWaitCycles } from "./wait-cycles.js";
import {
  continueDrain,
  continueWatch,
  drainStopOf,
  evictionDeadline,
  runNeverStarted,
  startStep,
  type Progress,
  type ProgressContext,
} from "./repair-progress.js";
import type { InheritedCommand } from "./command-marker.js";
import { inheritedTransition, waitForDeletedWithInheritedCommand, waitForInheritedCommand } from "./entry-command.js";

const NO_OBSERVATION: RepairObservation = { nodename: "", job: "none", drainJobDone: false };
const NO_PROOF = { nodeReady: null, bootId: null, sabakanState: null };

function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}

/**
 * CKE's repair queue decision for one pass (docs/semantics/repair-queue.md), as data: which entries change how, and
 * what to do after each change is committed. In order:
 * 0. while etcd is not good for repair (see etcd-quorum.ts), nothing happens to any entry, as in CKE;
 * 1. a deleted entry is dequeued, whatever else holds (kintsugi: but while a command another replica started for it may
 *    still run for a known time: it keeps its machine, slot and turn until then, see deletedButFenced);
 * 2. an entry whose procedure or operation is missing fails at once (kintsugi) and takes no slot;
 * 3. CKE's health rule, before every rule but 1 and 2: an entry whose health check said healthy succeeds at this
 *    pass (through the success command), whatever its step and step status (queued, waiting, draining, in drain
 *    back-off, watching), with the queue disabled, with no concurrency slot, waiting for the control-plane turn or
 *    on a held machine (a hold stops commands, never a success: the success command is skipped, see
 *    healthy-finish.ts); kintsugi: an operation with `success_requires` / `success_dwell_seconds` succeeds only
 *    once proven by the evidence gathered since the entry's first repair command, whichever step gathered it (see
 *    proof-judgement.ts), and until then goes on as an unhealthy entry, its evidence notes kept whatever rule holds it;
 * 4. the rest walk processing control-plane entries, other processing entries, queued control-plane entries, other
 *    queued entries, each group in index order: at most `max_concurrent_repairs` are in progress, an entry waiting
 *    for its drain back-off takes no slot but keeps its machine, one machine is never repaired by two entries at
 *    once (kintsugi), and a control-plane entry obeys `controlPlaneHold` (one at a time, none while another control
 *    plane reboots or is not Ready); kintsugi: a processing control plane held by one at a time or by another's
 *    readiness, with no job running, gives up the turn (see control-plane-turn.ts), and one in back-off holds none,
 *    so the turn never deadlocks; a held machine's entry does not move (a queued one does not start
 *    and takes no slot; a processing one keeps its slot, lets a running job finish its command and starts no
 *    other, a drain past its eviction timeout still stops; a processing control plane gives up the turn and its
 *    slot when the yield rule says so, as one a control-plane rule holds, and a drain with it); with `pacing`, a queued entry also waits while any of
 *    its failure domains has as many entries in progress as its allowance (see repair-pacing.ts), counting every
 *    processing entry that holds a slot (not waiting out a back-off, not yielded), held or not; each in progress
 *    moves on by its step status, except one whose proof dwell runs (kintsugi: every signal holds, so it is
 *    recovering as asked): its watch does not end and no drain or repair command starts until the dwell ends or a
 *    signal relapses (holdWhileDwelling).
 * Every entry a rule leaves where it is comes back in `held` with what it waits for (an entry a control-plane rule
 * holds takes no slot but, processing and not yielded, still counts as the one control plane in progress; a machine hold's
 * processing entry keeps its slot); every other unfinished entry that waits for its own step (a command, a drain, a
 * watch, the disabled queue) comes back in `waiting` (see progressWait).
 * An entry with a job running in this process is left to that job, except to be dequeued, to abandon a drain, or
 * to succeed while its drain's eviction job runs (the success stops the drain; see isCheckable).
 * `now` is milliseconds since the epoch; `random` returns [0, 1) for the back-off jitter.
 */
export function decideRepairActions(snapshot: RepairSnapshot, now: number, random: () => number): RepairPlan {
  const etcd = etcdNotGoodForRepair(snapshot.controlPlanes, snapshot.controlPlaneCount ?? 1);
  if (etcd !== null) return frozenPlan(snapshot, etcd);
  const actions: RepairAction[] = [];
  let wakeAt: number | null = null;
  const ctx: ProgressContext = {
    now,
    random,
    queueEnabled: snapshot.queueEnabled,
    evictionTimeoutSeconds: snapshot.repair.evictionTimeoutSeconds,
    ...(snapshot.fence && { owner: snapshot.fence.owner }),
  };
  const marginSeconds = snapshot.fence?.marginSeconds ?? 0;
  const observe = (e: RepairEntry) => snapshot.observations.get(e.index) ?? NO_OBSERVATION;

  // kintsugi: the machines a command runs on (or may, started by another replica), by the entry it runs for, and
  // those a success command starts on this pass: no other entry's command, drain or success command starts there.
  const commandOn = machinesInCommand(snapshot.entries, observe);
  const early = new Map<number, WaitingFor>();
  const finishing = new Set<number>();
  const contenders: Contender[] = [];
  // kintsugi: deleted entries whose command, started by another replica, may still run (see deletedButFenced).
  const leaving: Array<{ entry: RepairEntry; fenced: Extract<InheritedCommand, { kind: "may-run" }> }> = [];
  for (const entry of snapshot.entries) {
    if (entry.deleted) {
      const fenced = deletedButFenced(entry, observe(entry));
      if (fenced) leaving.push({ entry, fenced });
      else actions.push({ entry, transitions: [], effect: { kind: "dequeue" } });
      continue;
    }
    if (isFinished(entry)) continue;
    const obs = observe(entry);
    // kintsugi: a command another replica started may still run on the machine: nothing else happens to the entry
    // (but its deletion) until it has certainly ended; one that is over or never started is said in the history.
    const fenced = obs.inherited?.kind === "may-run" ? obs.inherited : undefined;
    const renamed = renamedTransitions(entry, obs);
    const inherited = obs.inherited;
    if (inherited?.kind === "interrupted") renamed.push(inheritedTransition(renamed.at(-1)?.after ?? entry, inherited, now));
    const current = renamed.at(-1)?.after ?? entry;
    // Said when something happens instead (the command runs now, or the entry succeeds), never by itself each pass.
    const neverStarted = inherited?.kind === "never-started" ? [inheritedTransition(current, inherited, now)] : [];
    const lookup = snapshot.repair.lookup(current);
    if ("message" in lookup) {
      const after: RepairEntry = { ...current, status: "failed", lastTransitionTime: truncateToSeconds(now) };
      actions.push({ entry, transitions: [...renamed, { after, kind: "transition", reason: lookup.message }], effect: { kind: "uncordon" } });
      continue;
    }
    if (fenced) {
      contenders.push({ entry, obs, current, renamed, operation: lookup.operation, fenced });
      continue;
    }
    // kintsugi: with proof of repair (see proof-judgement.ts), healthy is not enough: the evidence must hold too.
    const proof = isCheckable(obs.job) && obs.healthy !== undefined ? judgeProof(current, lookup.operation, obs.healthy, obs.proof ?? NO_PROOF, now) : null;
    if (isCheckable(obs.job) && obs.healthy === true && (proof === null || proof.kind !== "unproven")) {
      const finish = finishHealthy(entry, [...renamed, ...neverStarted, ...(proof?.transitions ?? [])], lookup.operation, snapshot.holds?.get(entry.address));
      const holder = commandOn.get(entry.address);
      if (!runsCommand(finish)) actions.push(finish);
      else if (holder === undefined || holder === entry.index) {
        commandOn.set(entry.address, entry.index);
        finishing.add(entry.index);
        actions.push(finish);
      } else {
        // Another entry's command runs on the machine: the success command waits until it has ended.
        early.set(entry.index, waitForMachine(entry.address, holder));
        if (renamed.length > 0) actions.push({ entry, transitions: renamed, effect: { kind: "none" } });
      }
      continue;
    }
    const proved = proof?.transitions ?? [];
    contenders.push({
      entry,
      obs,
      current: proved.at(-1)?.after ?? current,
      renamed: [...renamed, ...proved],
      operation: lookup.operation,
      ...(proof && { proof }),
    });
  }

  const planeOf = indexControlPlanes(snapshot.controlPlanes);
  const held = new Map<number, WaitingFor>(early);
  const waiting = new Map<number, WaitingFor>();
  const busy = new Map<string, number>(commandOn);
  let repairingPlane: RepairEntry | null = null;
  let inProgress = 0;
  // One wait for every entry the limit holds: on a long queue most entries wait for a slot.
  const fullReason = waitForSlot(snapshot.repair.maxConcurrentRepairs);
  const pacing = snapshot.pacing ? pacingGate(snapshot.pacing, snapshot.repair.maxConcurrentRepairs) : null;
  // Control planes that gave up the one-control-plane turn this pass: they hold no slot.
  const yielded = new Set<number>();
  // Pacing counts the processing entries that hold a slot: every one not waiting out a back-off and not yielded,
  // whatever else holds it (a held one may be cordoned or drained already); queued entries count from the moment
  // they start. Every processing entry is walked before the first queued one, so they are counted then.
  let processingPaced = false;
  const paceProcessing = () => {
    if (processingPaced) return;
    processingPaced = true;
    for (const { entry } of contenders)
      if (entry.status === "processing" && !isWaitingForBackoff(entry, now) && !yielded.has(entry.index)) pacing?.admit(entry);
  };
  const entryOfPlane = new Map<ControlPlane, number>();
  for (const { entry } of contenders) {
    const plane = planeOf.get(entry.address);
    if (plane && !entryOfPlane.has(plane)) entryOfPlane.set(plane, entry.index);
  }
  for (const { entry, fenced } of leaving) {
    // Leaving, it keeps its machine, its slot and the control-plane turn while its command may run.
    inProgress++;
    if (planeOf.has(entry.address) && !repairingPlane) repairingPlane = entry;
    held.set(entry.index, waitForDeletedWithInheritedCommand(entry, fenced, marginSeconds));
    wakeAt = earliest(wakeAt, (fenced.until ?? now) + 1);
  }
  for (const { entry, obs, current, renamed, operation, proof, fenced } of walkOrder(contenders, planeOf)) {
    if (fenced) {
      // It keeps its machine and its slot (and the control-plane turn) while its command may run.
      busy.set(entry.address, entry.index);
      inProgress++;
      if (planeOf.has(entry.address) && !repairingPlane) repairingPlane = entry;
      held.set(entry.index, waitForInheritedCommand(current, fenced, marginSeconds));
      if (fenced.until !== null) wakeAt = earliest(wakeAt, fenced.until + 1);
      if (renamed.length > 0) actions.push({ entry, transitions: renamed, effect: { kind: "none" } });
      continue;
    }
    const busyWith = busy.get(entry.address);
    const holder = busyWith === entry.index ? undefined : busyWith;
    if (isWaitingForBackoff(entry, now)) {
      // It takes no slot, but keeps its machine: another entry must not cordon the node meanwhile.
      if (holder === undefined) busy.set(entry.address, entry.index);
      // A control plane in back-off does not keep the one-control-plane turn (CKE leaves back-off entries out of its
      // walk): its node is uncordoned, and when the back-off ends it waits for the turn like any other.
      held.set(entry.index, waitForBackoff(entry.drainBackoffExpire ?? 0));
      wakeAt = earliest(wakeAt, entry.drainBackoffExpire);
      continue;
    }
    if (holder !== undefined) {
      held.set(entry.index, waitForMachine(entry.address, holder));
      // Mid-repair beside another entry's success command (which takes no slot): the machine still counts.
      if (entry.status === "processing" && finishing.has(holder)) {
        inProgress++;
        if (planeOf.has(entry.address) && !repairingPlane) repairingPlane = entry;
      }
      continue;
    }
    busy.set(entry.address, entry.index);
    const plane = planeOf.get(entry.address);
    const machineHold = snapshot.holds?.get(entry.address);
    if (machineHold) {
      held.set(entry.index, waitForHold(machineHold));
      if (machineHold.until !== null) wakeAt = earliest(wakeAt, machineHold.until);
      if (entry.status !== "processing") continue;
      // The yield rule runs for a held control plane too: a hold must not keep the turn from the control plane the
      // rule lets go first. It moves nothing but a drain it gives up.
      const planeHold = plane ? controlPlaneHold(plane, snapshot.controlPlanes, repairingPlane) : null;
      if (planeHold && yieldsTurn(entry, planeHold, obs)) {
        yielded.add(entry.index);
        if (entry.stepStatus !== "draining") continue;
        const given = yieldedProgress({ entry: current, op: operation, obs, ctx, hold: planeHold, prefix: renamed });
        actions.push({ entry, transitions: given.transitions, effect: given.effect });
        wakeAt = earliest(wakeAt, given.wakeAt);
        continue;
      }
      // Mid-repair (cordoned, maybe drained): it still counts against the limits, and a drain still times out.
      inProgress++;
      if (plane && !repairingPlane) repairingPlane = entry;
      const stop = drainStopOf(entry, ctx);
      if (stop) actions.push({ entry, transitions: stop.transitions, effect: stop.effect });
      else if (entry.stepStatus === "draining") wakeAt = earliest(wakeAt, evictionDeadline(entry, ctx) + 1);
      continue;
    }
    if (plane) {
      const hold = controlPlaneHold(plane, snapshot.controlPlanes, repairingPlane);
      const yields = hold !== null && yieldsTurn(entry, hold, obs);
      // The entry in the way: the control plane in progress (one at a time) or, for an entry without the turn, the
      // entry of the control plane that is not Ready.
      const inTheWay =
        hold?.rule === "one-at-a-time"
          ? (repairingPlane?.index ?? null)
          : hold?.rule === "not-ready" && (yields || entry.status === "queued")
            ? (entryOfPlane.get(hold.plane) ?? null)
            : null;
      if (hold && yields) {
        // It gives up the turn so that the other control plane (the dead one the rule allows) is repaired first.
        yielded.add(entry.index);
        held.set(entry.index, waitForControlPlane(hold.message, inTheWay));
        const progress = yieldedProgress({ entry: current, op: operation, obs, ctx, hold, prefix: renamed, proof });
        if (progress.transitions.length > 0 || progress.effect.kind !== "none")
          actions.push({ entry, transitions: progress.transitions, effect: progress.effect });
        wakeAt = earliest(wakeAt, progress.wakeAt);
        continue;
      }
      // A processing control plane may be cordoned or drained already: no other one starts beside it, held or not.
      if (entry.status === "processing" && !repairingPlane) repairingPlane = entry;
      if (hold) {
        held.set(entry.index, waitForControlPlane(hold.message, inTheWay));
        const stop = drainStopOf(entry, ctx);
        if (stop) actions.push({ entry, transitions: stop.transitions, effect: stop.effect });
        else if (entry.stepStatus === "draining") wakeAt = earliest(wakeAt, evictionDeadline(entry, ctx) + 1);
        continue;
      }
    }
    if (inProgress >= snapshot.repair.maxConcurrentRepairs) {
      held.set(entry.index, fullReason);
      continue;
    }
    if (entry.status === "queued") paceProcessing();
    const paced = entry.status === "queued" ? (pacing?.holdReason(entry) ?? null) : null;
    if (paced !== null) {
      held.set(entry.index, waitForPacing(paced.message, paced.domain));
      continue;
    }
    inProgress++;
    if (entry.status === "queued") pacing?.admit(entry);
    if (plane) repairingPlane = entry;
    const dwelling = holdWhileDwelling(entry, current, renamed, proof, ctx);
    if (dwelling) {
      if (dwelling.action) actions.push(dwelling.action);
      wakeAt = earliest(wakeAt, dwelling.wakeAt);
      continue;
    }
    const progress = withBootIdRecorded(progressOf(current, operation, obs, ctx, renamed), operation, obs.proof?.bootId ?? null);
    if (progress.transitions.length > 0 || progress.effect.kind !== "none") {
      actions.push({ entry, transitions: progress.transitions, effect: progress.effect });
    }
    wakeAt = earliest(wakeAt, progress.wakeAt);
    const wait = progressWait(progress.transitions.at(-1)?.after ?? current, progress.effect, obs, operation, ctx);
    if (wait) waiting.set(entry.index, wait);
  }
  // Proof of repair: evidence is kept even when a rule held the entry, and an entry that stays says what it waits for.
  for (const { entry, obs, renamed, proof } of contenders) {
    if (!proof) continue;
    const action = actions.find((a) => a.entry === entry);
    if (!action && renamed.length > 0) actions.push({ entry, transitions: renamed, effect: { kind: "none" } });
    const moved = action?.transitions.some((t) => t.kind === "transition") ?? false;
    if (proof.kind === "unproven" && obs.healthy === true && !moved && !held.has(entry.index)) held.set(entry.index, proof.wait);
    if (proof.kind === "unproven" && !moved) wakeAt = earliest(wakeAt, proof.wakeAt);
  }
  for (const { entry, effect } of actions) if (effect.kind === "success-command") waiting.set(entry.index, waitForCommand("success", entry.step));
  // Two entries that still wait for each other (two control planes both not Ready) say so on both.
  return { actions, wakeAt, held: withWaitCycles(held), waiting, yielded };
}

/**
 * A deleted entry's inherited command that may still run for a known time: the entry leaves the queue only after it.
 * undefined: it leaves now (no such command, or one with no timeout, which only the operator can say has ended).
 */
function deletedButFenced(entry: RepairEntry, obs: RepairObservation): Extract<InheritedCommand, { kind: "may-run" }> | undefined {
  return entry.deleted && !isFinished(entry) && obs.inherited?.kind === "may-run" && obs.inherited.until !== null ? obs.inherited : undefined;
}

/** The machines a command of an entry runs on, or may run on (started by another replica), by that entry. */
function machinesInCommand(entries: readonly RepairEntry[], observe: (e: RepairEntry) => RepairObservation): Map<string, number> {
  const on = new Map<string, number>();
  for (const e of entries) {
    if (deletedButFenced(e, observe(e)) && !on.has(e.address)) on.set(e.address, e.index);
    if (e.deleted || isFinished(e)) continue;
    const obs = observe(e);
    if ((!isCheckable(obs.job) || obs.inherited?.kind === "may-run") && !on.has(e.address)) on.set(e.address, e.index);
  }
  return on;
}

/** Whether a healthy entry's finish runs a success command on the machine. */
function runsCommand(action: RepairAction): boolean {
  return action.effect.kind === "success-command" && action.effect.operation.successCommand !== null;
}

/** An unfinished entry that competes for a slot, with what the first look at it found. */
interface Contender {
  readonly entry: RepairEntry;
  readonly obs: RepairObservation;
  /** The entry with its current node name (`renamed` records the change, if any). */
  readonly current: RepairEntry;
  readonly renamed: EntryTransition[];
  readonly operation: RepairOperationConfig;
  /** kintsugi: what proof of repair decided this pass (operations that require proof). */
  readonly proof?: ProofVerdict;
  /** kintsugi: a command another replica started that may still run on the machine. */
  readonly fenced?: Extract<InheritedCommand, { kind: "may-run" }>;
}

/**
 * CKE's walk: processing control planes, other processing entries, queued control planes, other queued entries;
 * kintsugi: processing control planes in the order they are offered the turn (see turnRank), and every processing
 * entry between two steps after those in the middle of one (see betweenSteps).
 */
function walkOrder(contenders: readonly Contender[], planeOf: ControlPlaneIndex): Contender[] {
  const groups: Contender[][] = [[], [], [], [], [], []];
  for (const c of contenders) {
    const group = c.entry.status !== "processing" ? 4 : betweenSteps(c) ? 2 : 0;
    groups[group + (planeOf.has(c.entry.address) ? 0 : 1)]!.push(c);
  }
  groups[0]!.sort((a, b) => turnRank(a.entry, a.obs) - turnRank(b.entry, b.obs));
  return groups.flat();
}

/**
 * kintsugi: a processing entry between two steps (back from a drain back-off, or its next step not started yet, no
 * job running) has nothing of its machine disrupted; walked before an entry in the middle of a step (draining, or
 * watching after its command), it would take that one's slot and start a drain or a command while the other stays
 * cordoned or rebooting, so more machines would be disrupted than max_concurrent_repairs allows. In CKE's walk a
 * control plane back from a back-off takes the slot of a worker whose command is running.
 */
function betweenSteps(c: Contender): boolean {
  return c.entry.stepStatus === "waiting" && c.obs.job === "none";
}

function progressOf(entry: RepairEntry, op: RepairOperationConfig, obs: RepairObservation, ctx: ProgressContext, renamed: EntryTransition[]): Progress {
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

/** When the machine's node name changed since the entry was stored, a note recording the new name. */
function renamedTransitions(entry: RepairEntry, obs: RepairObservation): EntryTransition[] {
  if (obs === NO_OBSERVATION || obs.nodename === entry.nodename) return [];
  const reason = obs.nodename === "" ? `no Kubernetes node has address ${entry.address} now` : `the machine is Kubernetes node ${obs.nodename}`;
  return [{ after: { ...entry, nodename: obs.nodename }, kind: "note", reason }];
}
