import type { ControlPlaneHold } from "./control-planes.js";
import { drainBackoff } from "./drain-backoff.js";
import type { RepairOperationConfig } from "./repair-config.js";
import type { RepairEntry } from "./repair-entry.js";
import type { EntryTransition, RepairObservation } from "./repair-plan.js";
import type { ProofVerdict } from "./proof-judgement.js";
import { continueWatch, type Progress, type ProgressContext } from "./repair-progress.js";

// The one-control-plane turn (CKE's maxConcurrentApiServerRepairs = 1, server/strategy.go repairOps). CKE gives the
// turn only to an entry it works on this pass: a skipped control-plane entry and one waiting out a drain back-off
// (filtered out before the walk) hold nothing. kintsugi also keeps a held processing control plane's turn, since it
// may be cordoned or drained already; these rules say when it must give the turn up so that no two control-plane
// entries wait for each other for good.

/**
 * Whether a control-plane entry that `hold` keeps from moving gives up the one-control-plane turn this pass: it is
 * processing (a queued one never held it), no job runs for it (a running drain or command keeps the turn until it
 * ends), and the rule is one at a time or another control plane not Ready. A control plane being rebooted by CKE
 * holds every control-plane entry alike and ends by itself, so the entry keeps the turn meanwhile.
 */
export function yieldsTurn(entry: RepairEntry, hold: ControlPlaneHold, obs: RepairObservation): boolean {
  return entry.status === "processing" && obs.job === "none" && hold.rule !== "rebooting";
}

/** A control-plane entry that gave up the turn, with what its pass knows and the transitions already decided. */
export interface YieldedEntry {
  readonly entry: RepairEntry;
  readonly op: RepairOperationConfig;
  readonly obs: RepairObservation;
  readonly ctx: ProgressContext;
  readonly hold: ControlPlaneHold;
  readonly prefix: EntryTransition[];
  /** What proof of repair decided this pass (operations that require proof). */
  readonly proof?: ProofVerdict | undefined;
}

/**
 * What a control-plane entry that gave up the turn does this pass (`entry` as of `prefix`, notes such as a new node
 * name): nothing that disrupts its machine, so the control plane that takes the turn is the only one disrupted.
 * A drain is given up (a drain back-off, which uncordons the node; it is retried when the back-off ends). A watch is
 * still judged: when it runs out the entry moves to its next step, whose start waits for the turn, or fails after
 * its last step, as CKE moves a watch on whatever else waits; but while its proof dwell runs (kintsugi, see
 * holdWhileDwelling) the watch does not end, as on the path of an entry with the turn. Its node is uncordoned
 * meanwhile as a stray cordon (see strayCordons), only when kintsugi did cordon it.
 */
export function yieldedProgress({ entry, op, obs, ctx, hold, prefix, proof }: YieldedEntry): Progress {
  if (entry.stepStatus === "draining") {
    const after = drainBackoff(entry, ctx.now, ctx.random);
    const reason = `step ${entry.step + 1}: drain given up, ${hold.message}: the other control plane goes first; backing off until ${new Date(after.drainBackoffExpire ?? 0).toISOString()}`;
    return { transitions: [...prefix, { after, kind: "transition", reason }], effect: { kind: "abandon-drain" }, wakeAt: after.drainBackoffExpire };
  }
  if (entry.stepStatus === "watching") {
    if (proof?.kind === "unproven" && proof.dwelling) return { transitions: prefix, effect: { kind: "none" }, wakeAt: proof.wakeAt };
    // A disabled queue moves a watch on and starts nothing: the next step's start waits for the turn.
    const judged = continueWatch(entry, op, obs, { ...ctx, queueEnabled: false });
    return { ...judged, transitions: [...prefix, ...judged.transitions] };
  }
  return { transitions: prefix, effect: { kind: "none" }, wakeAt: null };
}

/**
 * The order in which processing control-plane entries are offered the turn: one with a job running first (its drain
 * or command is under way), then one draining (its node is cordoned), then the others; index order within each
 * (the sort is stable). So a running repair is never overtaken by an older entry that yielded to it.
 */
export function turnRank(entry: RepairEntry, obs: RepairObservation): number {
  if (obs.job !== "none") return 0;
  return entry.stepStatus === "draining" ? 1 : 2;
}
