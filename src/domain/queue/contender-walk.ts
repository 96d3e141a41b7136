import { turnRank, yieldedProgress, yieldsTurn } from "./control-plane-turn.js";
import { controlPlaneHold, indexControlPlanes, type ControlPlane, type ControlPlaneIndex } from "./control-planes.js";
import { isWaitingForBackoff } from "./drain-backoff.js";
import type { RepairEntry } from "./repair-entry.js";
import { pacingGate, withFailuresDecided, type PacingGate } from "../pacing/repair-pacing.js";
import { holdWhileDwelling } from "./healthy-finish.js";
import { withBootIdRecorded } from "./proof-judgement.js";
import { waitForBackoff, waitForControlPlane, waitForHold, waitForMachine, waitForPacing, waitForSlot, type WaitingFor } from "./repair-wait.js";
import { earliest, type RepairAction, type RepairSnapshot } from "./repair-plan.js";
import { progressWait } from "./progress-wait.js";
import { drainStopOf, evictionDeadline, progressOf, type ProgressContext } from "./repair-progress.js";
import { waitForDeletedWithInheritedCommand, waitForInheritedCommand } from "./entry-command.js";
import type { Contender, EntryTriage } from "./entry-triage.js";

/** What the walk of the contenders decided, handed back to decideRepairActions. */
export interface ContenderWalk {
  /** The actions the walk decided, in walk order (after the first look's). */
  readonly actions: RepairAction[];
  /** When to look again at the latest, so far (null = no timer needed). */
  readonly wakeAt: number | null;
  /** The entries a rule left where they are, the first look's healthy entries waiting for a machine among them. */
  readonly held: Map<number, WaitingFor>;
  /** The entries in progress that wait for their own step. */
  readonly waiting: Map<number, WaitingFor>;
  /** The processing control planes that gave up the one-control-plane turn: they hold no slot. */
  readonly yielded: Set<number>;
}

/**
 * The walk of the contenders, rule 4 of decideRepairActions (repair-decision.ts): the leaving entries and fenced
 * contenders keep their machine, slot and turn; the rest, in CKE's walk order (walkOrder), each in turn meet the
 * machine a command runs on, the drain back-off, the machine holds, the one-control-plane turn, the
 * max_concurrent_repairs slots and pacing; one that passes them all moves on by its step status unless its proof
 * dwell runs. `triage` is what the first look found (entry-triage.ts).
 */
export function walkContenders(snapshot: RepairSnapshot, triage: EntryTriage, ctx: ProgressContext): ContenderWalk {
  const { early, finishing, commandOn, contenders, leaving } = triage;
  const now = ctx.now;
  const marginSeconds = snapshot.fence?.marginSeconds ?? 0;
  const actions: RepairAction[] = [];
  let wakeAt: number | null = null;
  const planeOf = indexControlPlanes(snapshot.controlPlanes);
  const held = new Map<number, WaitingFor>(early);
  const waiting = new Map<number, WaitingFor>();
  const busy = new Map<string, number>(commandOn);
  let repairingPlane: RepairEntry | null = null;
  let inProgress = 0;
  // One wait for every entry the limit holds (on a long queue most entries wait for a slot), made again only when
  // another held entry keeps its slot: the wait names them.
  const heldSlots: number[] = [];
  let fullReason = waitForSlot(snapshot.repair.maxConcurrentRepairs);
  let fullNames = 0;
  // Control planes that gave up the one-control-plane turn this pass: they hold no slot.
  const yielded = new Set<number>();
  // Pacing, built at the first queued entry's look (undefined until then): every processing entry is walked before
  // it, so the gate knows every failure this pass decides (a failure throttles the starts of its own pass) and counts
  // the processing entries that hold a slot: every one not waiting out a back-off and not yielded, whatever else
  // holds it (a held one may be cordoned or drained already); queued entries count from the moment they start.
  let pacing: PacingGate | null | undefined;
  const pacingOfPass = (): PacingGate | null => {
    if (pacing !== undefined) return pacing;
    const failed = [...triage.actions, ...actions].flatMap(({ entry, transitions }) => {
      const after = transitions.at(-1)?.after;
      return after?.status === "failed" && entry.status !== "failed" ? [after] : [];
    });
    pacing = snapshot.pacing ? pacingGate(withFailuresDecided(snapshot.pacing, failed), snapshot.repair.maxConcurrentRepairs) : null;
    for (const { entry } of contenders)
      if (entry.status === "processing" && !isWaitingForBackoff(entry, now) && !yielded.has(entry.index)) pacing?.admit(entry);
    return pacing;
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
      heldSlots.push(entry.index);
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
        // It kept the turn (its drain or command runs, or CKE reboots another control plane): mid-repair, its node may
        // be cordoned or drained, so it takes a slot as a held worker does.
        if (entry.status === "processing") inProgress++;
        held.set(entry.index, waitForControlPlane(hold.message, inTheWay));
        const stop = drainStopOf(entry, ctx);
        if (stop) actions.push({ entry, transitions: stop.transitions, effect: stop.effect });
        else if (entry.stepStatus === "draining") wakeAt = earliest(wakeAt, evictionDeadline(entry, ctx) + 1);
        continue;
      }
    }
    if (inProgress >= snapshot.repair.maxConcurrentRepairs) {
      if (fullNames !== heldSlots.length) {
        fullNames = heldSlots.length;
        fullReason = waitForSlot(snapshot.repair.maxConcurrentRepairs, heldSlots);
      }
      held.set(entry.index, fullReason);
      continue;
    }
    const gate = entry.status === "queued" ? pacingOfPass() : null;
    const paced = gate?.holdReason(entry) ?? null;
    if (paced !== null) {
      held.set(entry.index, waitForPacing(paced.message, paced.domain));
      continue;
    }
    inProgress++;
    gate?.admit(entry);
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
  return { actions, wakeAt, held, waiting, yielded };
}

/**
 * CKE's walk: processing control planes, other processing entries, queued control planes, other queued entries;
 * kintsugi: processing control planes in the order they are offered the turn (see turnRank), and every processing
 * entry between two steps after those in the middle of one (see betweenSteps), control planes that disrupt nothing of
 * their machines between the two (see idlePlane).
 */
function walkOrder(contenders: readonly Contender[], planeOf: ControlPlaneIndex): Contender[] {
  const groups: Contender[][] = [[], [], [], [], [], [], [], []];
  for (const c of contenders) {
    const group = c.entry.status !== "processing" ? 6 : betweenSteps(c) ? 4 : idlePlane(c, planeOf) ? 2 : 0;
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

/**
 * kintsugi: a processing control plane that watches with its node not cordoned for it (it gave up the turn, which
 * uncordoned it, or its step drains nothing) disrupts nothing of its machine either; walked as one between two
 * steps, it does not take the slot of a worker that started while it had given up the turn and is in the middle of a
 * step, cordoned (simulator seed 74: back with the turn, the control plane took the one slot, its watch ran out and it
 * drained its node beside that worker's).
 */
function idlePlane(c: Contender, planeOf: ControlPlaneIndex): boolean {
  // A command another replica started may still run there: that machine is disrupted, cordoned or not.
  if (c.fenced) return false;
  return planeOf.has(c.entry.address) && c.entry.stepStatus === "watching" && c.obs.job === "none" && c.obs.cordoned === false;
}
