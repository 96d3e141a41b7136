import { decideRepairActions } from "../domain/queue/repair-decision.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import type { RepairEffect, RepairObservation, RepairPlan, RepairSnapshot } from "../domain/queue/repair-plan.js";
import { mapBounded } from "./bounded-map.js";
import { checkHealth, type GatherDeps } from "./gather-state.js";

/** Effects that act on a machine: never started on a health verdict kept from an earlier pass. */
const DISRUPTIVE: ReadonlySet<RepairEffect["kind"]> = new Set(["drain", "repair-command", "diagnostics"]);

/** The entries `plan` would disrupt on a verdict reused from an earlier pass (see HealthVerdicts). */
function disruptedOnKeptVerdicts(plan: RepairPlan, reused: ReadonlySet<number>): RepairEntry[] {
  return plan.actions.filter((a) => DISRUPTIVE.has(a.effect.kind) && reused.has(a.entry.index)).map((a) => a.entry);
}

/**
 * The pass's decision, with nothing disruptive decided on a kept verdict: `reused` are the entries whose verdict in
 * `snapshot` was kept from an earlier pass (not checked in this one). While the decision would start a drain, a
 * diagnostics or a repair command for one of them, those are checked now (their verdicts replaced in the snapshot's
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
  for (let stale = disruptedOnKeptVerdicts(plan, reused); stale.length > 0; stale = disruptedOnKeptVerdicts(plan, reused)) {
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
