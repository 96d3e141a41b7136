import {
  afterStep,
  decreaseControlPlanes,
  decreaseWorkers,
  increaseControlPlanes,
  increaseWorkers,
  loadCurrent,
  removeNonExistent,
  replaceControlPlane,
  type Loaded,
  type StepResult,
} from "./maintenance.js";
import { waitingControlPlanes } from "./control-plane-grace.js";
import { describeNodeChanges } from "./node.js";
import { stableJson } from "./stable-json.js";
import { clusterWide, newPlan, renderNodes, type ClusterInputs, type Plan } from "./plan.js";
import type { ClusterWide, GeneratedCluster, GenerationResult } from "./types.js";

/** Which cluster-wide keys differ between the configuration in force and the template, as one sentence (or none). */
export function describeClusterWide(before: ClusterWide, after: ClusterWide): string[] {
  const keys: string[] = [];
  if (before.name !== after.name) keys.push("name");
  if (before.service_subnet !== after.service_subnet) keys.push("service_subnet");
  if (stableJson(before.control_plane_tolerations) !== stableJson(after.control_plane_tolerations)) keys.push("control_plane_tolerations");
  for (const k of [...new Set([...Object.keys(before.extra), ...Object.keys(after.extra)])].sort()) {
    if (stableJson(before.extra[k]) !== stableJson(after.extra[k])) keys.push(k);
  }
  return keys.length > 0 ? [`update cluster-wide settings from the template: ${keys.join(", ")}`] : [];
}

/**
 * Maintenance: compares sabakan's machines with the current cluster and applies the first maintenance action whose
 * condition matches, in the seed's order — remove non-existent nodes, increase control planes, decrease control
 * planes, replace a control plane, increase workers, decrease workers — then fills up to the constraints. Every
 * node is rendered afresh from the template and its machine, so taints (retiring/retired), labels and annotations
 * follow the machines; each difference is reported. Nothing to do gives zero changes and the same cluster.
 * `nodeTaints` are the Kubernetes Nodes' taints by node name, `rebootingNodes` the Nodes CKE is rebooting. A control
 * plane in a bad machine state is replaced only past wait-seconds-to-replace-control-plane and never during a planned
 * reboot; the ones kept for that are in `waiting`. An error leaves the current cluster untouched.
 */
export function update(current: GeneratedCluster, inputs: ClusterInputs): GenerationResult {
  const { template } = inputs;
  const start = (): [Plan, Loaded] | string => {
    const plan = newPlan(inputs);
    return typeof plan === "string" ? plan : [plan, loadCurrent(plan, current.nodes)];
  };
  let started = start();
  if (typeof started === "string") return { ok: false, error: started };
  let plan = started[0];
  const loaded = started[1];

  let result: StepResult = afterStep(plan, removeNonExistent(plan, loaded));
  for (const step of [increaseControlPlanes, decreaseControlPlanes, replaceControlPlane, increaseWorkers, decreaseWorkers]) {
    if (result !== "skip") break;
    result = afterStep(plan, step(plan));
    if (step === replaceControlPlane && typeof result === "object") {
      // No replacement is available: leave the control plane alone and go on with the other steps.
      started = start() as [Plan, Loaded];
      plan = started[0];
      result = "skip";
    }
  }
  if (typeof result === "object") return { ok: false, error: result.error };

  const nodes = renderNodes(plan);
  const changes = [...plan.changes, ...describeClusterWide(current, template)];
  const before = new Map(current.nodes.map((n) => [n.address, n]));
  for (const n of nodes) {
    const old = before.get(n.address);
    const m = plan.byAddress.get(n.address);
    if (old && m && old.control_plane === n.control_plane) changes.push(...describeNodeChanges(old, n, m.state));
  }
  return { ok: true, cluster: { ...clusterWide(template), nodes }, changes, waiting: waitingControlPlanes(plan) };
}
