import { addControlPlane, addressOf, addWorker, clusterWide, newPlan, removeWorker, renderNodes, selectControlPlane, selectWorker, type Plan } from "./plan.js";
import { NOT_WAITING, type ClusterConstraints, type ClusterMachine, type ClusterTemplate, type GenerationResult, type NodeTaints } from "./types.js";

const plural = (n: number, one: string, many: string) => (n === 0 ? `no ${many}` : `${n} ${n === 1 ? one : many}`);

function rackReason(plan: Plan, m: ClusterMachine): string {
  const n = plan.cps.filter((c) => c.rack === m.rack).length;
  return `rack ${m.rack} has ${n === 0 ? "none" : plural(n, "control plane", "control planes")}`;
}

/**
 * Fills the plan up to the constraints, CKE's `fill`: control planes up to `control-plane-count` by node selection
 * from unused healthy untainted machines, else by promoting a worker while workers exceed `minimum-workers`; then
 * workers up to `minimum-workers`, each from the template furthest below its weight. Returns an error or null.
 */
export function fill(plan: Plan): string | null {
  const { controlPlaneCount, minimumWorkers } = plan.constraints;
  while (plan.cps.length < controlPlaneCount) {
    const why = `control-plane-count is ${controlPlaneCount}, the cluster has ${plan.cps.length}`;
    const m = selectControlPlane(plan);
    if (m) {
      plan.changes.push(`add control plane ${addressOf(m)} (serial ${m.serial}): ${why}; ${rackReason(plan, m)}`);
      addControlPlane(plan, m);
      continue;
    }
    const promote = plan.workers.length > minimumWorkers ? selectControlPlane(plan, plan.workers) : undefined;
    if (!promote) {
      const role = plan.cpRole === "" ? "" : ` of role ${JSON.stringify(plan.cpRole)}`;
      return `not enough healthy machines: ${why} and no unused healthy untainted machine${role} or spare worker is left`;
    }
    plan.changes.push(
      `promote worker ${addressOf(promote)} (serial ${promote.serial}) to control plane: ${why} and no unused healthy machine is left; ${rackReason(plan, promote)}`,
    );
    removeWorker(plan, promote);
    addControlPlane(plan, promote);
  }
  while (plan.workers.length < minimumWorkers) {
    const why = `minimum-workers is ${minimumWorkers}, the cluster has ${plan.workers.length}`;
    const pick = selectWorker(plan);
    if (!pick) return `not enough healthy machines: ${why} and no unused healthy machine of a template's role is left`;
    plan.changes.push(describeWorkerAdd(plan, pick.m, pick.t, why));
    addWorker(plan, pick.m);
  }
  return null;
}

/** "add worker 10.0.2.7 (serial s7, role "ss", weight 3): <why>; rack 2 has none of role "ss"". */
export function describeWorkerAdd(plan: Plan, m: ClusterMachine, t: number, why: string): string {
  const tmpl = plan.workerTemplates[t];
  const role = tmpl && tmpl.role !== "" ? `role ${JSON.stringify(tmpl.role)}` : "any role";
  const inRack = plan.workerRacks[t]?.get(m.rack) ?? 0;
  const weight = plan.workerTemplates.length > 1 ? `, weight ${tmpl?.weight} with ${plan.workerCount[t] ?? 0} so far` : "";
  return `add worker ${addressOf(m)} (serial ${m.serial}, ${role}${weight}): ${why}; rack ${m.rack} has ${inRack === 0 ? "none" : plural(inRack, "worker", "workers")} of ${role}`;
}

/**
 * Initialization: generates a cluster from the template and sabakan's machines, selecting `control-plane-count`
 * control planes (spread over racks, newer machines first) and then `minimum-workers` workers by weight. Fails with
 * "not enough healthy machines" when the healthy machines cannot satisfy the constraints. `nodeTaints` (Kubernetes
 * Node taints by node name, when some machines already are Nodes) keep tainted machines out of the control plane,
 * as maintenance does, so the first configuration is not replaced at once by the next round.
 */
export function generate(
  template: ClusterTemplate,
  machines: readonly ClusterMachine[],
  constraints: ClusterConstraints,
  now: number,
  nodeTaints: NodeTaints = new Map(),
): GenerationResult {
  const plan = newPlan({ template, machines, constraints, nodeTaints, now });
  if (typeof plan === "string") return { ok: false, error: plan };
  const error = fill(plan);
  if (error !== null) return { ok: false, error };
  return { ok: true, cluster: { ...clusterWide(template), nodes: renderNodes(plan) }, changes: plan.changes, waiting: NOT_WAITING };
}
