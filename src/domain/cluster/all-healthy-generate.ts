import type { Constraints } from "../shared/constraints.js";
import { allHealthyNode, mayRemoveRetiredWorker } from "./all-healthy.js";
import { AllHealthyWorkerPicker, fillAllHealthy } from "./all-healthy-fill.js";
import { increaseControlPlanes, loadCurrent, removeNonExistent, type StepResult } from "./maintenance.js";
import { describeNodeChanges } from "./node.js";
import { addressOf, addWorker, clusterWide, newPlan, removeControlPlane, removeWorker, workerTemplateOf, type Plan, type WorkerTemplate } from "./plan.js";
import { countByRack, pickLowest } from "./score.js";
import {
  NOT_WAITING,
  RETIRED_WAIT_SECONDS,
  type ClusterConstraints,
  type ClusterMachine,
  type ClusterNode,
  type ClusterTemplate,
  type GeneratedCluster,
  type GenerationResult,
  type NodeTaints,
} from "./types.js";
import { describeClusterWide } from "./update.js";

/*
 * Cluster generation under `sabakan.worker_selection: all_healthy`: CKE v1.32.2 and later, after cybozu-go/cke
 * sabakan/generator.go (Generate, Update and its steps). Unlike weighted, a control plane in a bad state is never
 * replaced (CKE's NotRemoveUnhealthyCP), and minimum-workers, maximum-workers and the weights play no part.
 */

/** What all_healthy reads of the constraints. */
export type AllHealthyConstraints = ClusterConstraints & Pick<Constraints, "minimumWorkersRate">;

/** Renders the plan with CKE v1.32.2's MachineToNode: control planes first, then workers, each in plan order. */
function render(plan: Plan): ClusterNode[] {
  return [
    ...plan.cps.map((m) => allHealthyNode(m, plan.cpTemplate, true)),
    ...plan.workers.map((m) => allHealthyNode(m, (plan.workerTemplates[workerTemplateOf(plan, m)] as WorkerTemplate).tmpl, false)),
  ];
}

/**
 * Initialization under all_healthy: `control-plane-count` control planes (spare Nodes first, then spread over racks,
 * newer machines first), and every other healthy machine of the templates' roles a worker. Fails with "not enough
 * healthy machines" when the control planes cannot be filled. `spareKey` is `sabakan.spare_node_taint_key`.
 */
export function generateAllHealthy(
  template: ClusterTemplate,
  machines: readonly ClusterMachine[],
  constraints: AllHealthyConstraints,
  spareKey: string | null,
  now: number,
  nodeTaints: NodeTaints = new Map(),
): GenerationResult {
  const plan = newPlan({ template, machines, constraints, nodeTaints, now });
  if (typeof plan === "string") return { ok: false, error: plan };
  const error = fillAllHealthy(plan, spareKey);
  if (error !== null) return { ok: false, error };
  return { ok: true, cluster: { ...clusterWide(template), nodes: render(plan) }, changes: plan.changes, waiting: NOT_WAITING };
}

/** CKE's decreaseControlPlane: demote the lowest removal scores (unhealthy first) to workers until the count fits. */
function decreaseControlPlanes(plan: Plan): StepResult {
  const { controlPlaneCount } = plan.constraints;
  if (plan.cps.length <= controlPlaneCount) return "skip";
  while (plan.cps.length > controlPlaneCount) {
    const m = pickLowest(plan.cps, countByRack(plan.cps), plan.now) as ClusterMachine;
    removeControlPlane(plan, m);
    const why = `control-plane-count is ${controlPlaneCount}; lowest removal score (${m.state}, rack ${m.rack})`;
    if (workerTemplateOf(plan, m) >= 0) {
      plan.changes.push(`change control plane ${addressOf(m)} (serial ${m.serial}) to worker: ${why}`);
      addWorker(plan, m);
    } else {
      plan.changes.push(`remove control plane ${addressOf(m)} (serial ${m.serial}): ${why}; no worker template for role ${JSON.stringify(m.role)}`);
    }
  }
  return "acted";
}

/**
 * CKE's increaseWorker: while healthy workers are fewer than the healthy machines less the control planes, adds
 * workers (unhealthy workers stay and do not count).
 */
function increaseWorkers(plan: Plan): StepResult {
  const healthyWorkers = plan.workers.filter((m) => m.state === "HEALTHY").length;
  const available = plan.machines.filter((m) => m.state === "HEALTHY").length - plan.cps.length;
  const picker = new AllHealthyWorkerPicker(plan);
  let added = 0;
  for (let m = picker.next(); m !== undefined && healthyWorkers + added < available; m = picker.next()) {
    plan.changes.push(
      `add worker ${addressOf(m)} (serial ${m.serial}): ${healthyWorkers + added} healthy workers, all_healthy wants ${available} (every healthy machine that is not a control plane)`,
    );
    addWorker(plan, m);
    added++;
  }
  return added > 0 ? "acted" : "skip";
}

/**
 * CKE's decreaseWorker: removes the first worker RETIRED for more than 300 s, only while the workers left stay at
 * least `minimum-workers-rate` percent of sabakan's machines.
 */
function decreaseRetiredWorker(plan: Plan, minimumWorkersRate: number): StepResult {
  const retired = plan.workers.find((m) => m.state === "RETIRED" && m.durationSeconds > RETIRED_WAIT_SECONDS);
  if (!retired) return "skip";
  const machines = plan.machines.length;
  if (!mayRemoveRetiredWorker(plan.workers.length, machines, minimumWorkersRate)) return "skip";
  const left = plan.workers.length - 1;
  plan.changes.push(
    `remove retired worker ${addressOf(retired)} (serial ${retired.serial}): RETIRED for ${retired.durationSeconds} s (> ${RETIRED_WAIT_SECONDS} s); ${left} workers of ${machines} machines stay at or above minimum-workers-rate ${minimumWorkersRate}%`,
  );
  removeWorker(plan, retired);
  return "acted";
}

/**
 * Maintenance under all_healthy, CKE's Update: the first step that applies of remove non-existent nodes, increase
 * control planes, decrease control planes, increase workers, decrease (retired) workers; then fill. Every node is
 * rendered afresh, so state taints (unreachable, retiring, retired) and labels follow the machines, as CKE's
 * taintNodes step does. An error leaves the current cluster untouched.
 */
export function updateAllHealthy(
  current: GeneratedCluster,
  template: ClusterTemplate,
  machines: readonly ClusterMachine[],
  nodeTaints: NodeTaints,
  constraints: AllHealthyConstraints,
  spareKey: string | null,
  now: number,
): GenerationResult {
  const plan = newPlan({ template, machines, constraints, nodeTaints, now });
  if (typeof plan === "string") return { ok: false, error: plan };
  let result = removeNonExistent(plan, loadCurrent(plan, current.nodes));
  const steps = [increaseControlPlanes, decreaseControlPlanes, increaseWorkers, (p: Plan) => decreaseRetiredWorker(p, constraints.minimumWorkersRate)];
  for (const step of steps) {
    if (result !== "skip") break;
    result = step(plan);
  }
  if (typeof result === "object") return { ok: false, error: result.error };
  const error = fillAllHealthy(plan, spareKey);
  if (error !== null) return { ok: false, error };

  const nodes = render(plan);
  const changes = [...plan.changes, ...describeClusterWide(current, template)];
  const before = new Map(current.nodes.map((n) => [n.address, n]));
  for (const n of nodes) {
    const old = before.get(n.address);
    const m = plan.byAddress.get(n.address);
    if (old && m && old.control_plane === n.control_plane) changes.push(...describeNodeChanges(old, n, m.state));
  }
  return { ok: true, cluster: { ...clusterWide(template), nodes }, changes, waiting: NOT_WAITING };
}
