import { etcdNotGoodForRepair, frozenPlan } from "./etcd-quorum.js";
import { waitForCommand } from "./repair-wait.js";
import { earliest, type RepairPlan, type RepairSnapshot } from "./repair-plan.js";
import { withWaitCycles } from "./wait-cycles.js";
import type { ProgressContext } from "./repair-progress.js";
import { triageEntries } from "./entry-triage.js";
import { walkContenders } from "./contender-walk.js";

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
 *    its failure domains has as many entries in progress as its allowance (see repair-pacing.ts; a failure this pass
 *    decides lowers it already), counting every
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
  const ctx: ProgressContext = {
    now,
    random,
    queueEnabled: snapshot.queueEnabled,
    evictionTimeoutSeconds: snapshot.repair.evictionTimeoutSeconds,
    ...(snapshot.fence && { owner: snapshot.fence.owner }),
  };
  // Rules 1 to 3: the first look at every entry (entry-triage.ts); rule 4: the walk of the rest (contender-walk.ts).
  const triage = triageEntries(snapshot, now);
  const walk = walkContenders(snapshot, triage, ctx);
  const actions = [...triage.actions, ...walk.actions];
  const { held, waiting, yielded } = walk;
  let wakeAt = walk.wakeAt;
  // Proof of repair: evidence is kept even when a rule held the entry, and an entry that stays says what it waits for.
  for (const { entry, obs, renamed, proof } of triage.contenders) {
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
