import { decideRepairActions } from "../domain/queue/repair-decision.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import type { RepairObservation, RepairPlan, RepairSnapshot } from "../domain/queue/repair-plan.js";
import { mapBounded } from "./bounded-map.js";
import { checkHealth, type GatherDeps } from "./gather-state.js";

/**
 * The entries `plan` would act on (a transition or an effect) on a verdict reused from an earlier pass (see
 * HealthVerdicts). Not only drains and commands: failing an entry after its last step, or moving it to the next, on a
 * verdict from before its command ended would leave a repaired machine failed.
 */
function decidedOnKeptVerdicts(plan: RepairPlan, reused: ReadonlySet<number>): RepairEntry[] {
  return plan.actions.filter((a) => reused.has(a.entry.index) && (a.transitions.length > 0 || a.effect.kind !== "none")).map((a) => a.entry);
}

/**
 * The pass's decision, with nothing decided on a kept verdict: `reused` are the entries whose verdict in `snapshot`
 * was kept from an earlier pass (not checked in this one). While the decision would act on one of them, those are
 * checked now (their verdicts replaced in the snapshot's
 * observations) and the pass decides again; each round checks at least one more entry, so it ends. Null when the
 * runner stopped meanwhile (the observations are then incomplete).
 */
export async function decideOnFreshHealth(
  snapshot: RepairSnapshot & { readonly observations: Map<number, RepairObservation> },
  now: number,
  random: () => number,
  reused: Set<number>,
  gather: GatherDeps,
): Promise<RepairPlan | null> {
  let plan = decideRepairActions(snapshot, now, random);
  for (let stale = decidedOnKeptVerdicts(plan, reused); stale.length > 0; stale = decidedOnKeptVerdicts(plan, reused)) {
    const { observations } = snapshot;
    await mapBounded(stale, gather.healthCheckConcurrency, async (entry) => {
      reused.delete(entry.index);
      const seen = observations.get(entry.index);
      const healthy = await checkHealth(entry, seen?.nodename ?? "", gather);
      if (seen && healthy !== undefined) observations.set(entry.index, { ...seen, healthy });
    });
    if (gather.signal.aborted) return null;
    plan = decideRepairActions(snapshot, now, random);
  }
  return plan;
}
