import { judgePlanControlPlane } from "./control-plane-grace.js";
import { describeWorkerAdd, fill } from "./generate.js";
import { hasIntolerableTaint } from "./node.js";
import {
  addControlPlane,
  addressOf,
  addWorker,
  removeControlPlane,
  removeWorker,
  selectControlPlane,
  selectWorker,
  workerTemplateOf,
  type Plan,
} from "./plan.js";
import { bySerial, countByRack, lifetimeDays, pickLowest, removalScore } from "./score.js";
import { describeStrandedWorkers } from "./stranded-workers.js";
import { RETIRED_WAIT_SECONDS, type ClusterMachine, type ClusterNode } from "./types.js";

/** What loading the current cluster into a plan found: nodes sabakan no longer lists, workers without a template. */
export interface Loaded {
  readonly currentCps: number;
  readonly missingCps: readonly ClusterNode[];
  readonly missingWorkers: readonly ClusterNode[];
  readonly orphans: readonly ClusterMachine[];
}

/** Puts the current cluster's nodes into an empty plan, in their order. */
export function loadCurrent(plan: Plan, nodes: readonly ClusterNode[]): Loaded {
  const missingCps: ClusterNode[] = [];
  const missingWorkers: ClusterNode[] = [];
  const orphans: ClusterMachine[] = [];
  for (const n of nodes) {
    const m = plan.byAddress.get(n.address);
    if (m === undefined) (n.control_plane ? missingCps : missingWorkers).push(n);
    else if (plan.used.has(m.serial)) continue;
    else if (n.control_plane) addControlPlane(plan, m);
    else if (workerTemplateOf(plan, m) < 0) {
      orphans.push(m);
      plan.used.add(m.serial);
    } else addWorker(plan, m);
  }
  return { currentCps: nodes.filter((n) => n.control_plane).length, missingCps, missingWorkers, orphans };
}

/** The outcome of one maintenance step: it did not apply, it applied (fill follows), or it must stop the round. */
export type StepResult = "skip" | "acted" | { readonly error: string };

/**
 * Step "remove non-existent nodes", refusing to lose etcd's quorum, and refusing to drop workers whose role no node
 * template takes (a template edit, or a role changed in sabakan): the round fails, changing nothing, until the
 * operator decides.
 */
export function removeNonExistent(plan: Plan, loaded: Loaded): StepResult {
  const { missingCps, missingWorkers, orphans, currentCps } = loaded;
  if (missingCps.length > 0 && plan.cps.length * 2 <= currentCps) {
    const addresses = missingCps.map((n) => n.address).join(", ");
    return {
      error: `refusing to remove ${missingCps.length} of ${currentCps} control planes no longer in sabakan's list (${addresses}): replacing more than half of the control planes at once would break etcd's quorum; fix the cluster configuration by hand`,
    };
  }
  if (orphans.length > 0) {
    return { error: `refusing to remove workers: ${describeStrandedWorkers(orphans.map((m) => ({ address: addressOf(m), role: m.role })))}` };
  }
  for (const n of missingCps) plan.changes.push(`remove control plane ${n.address}: no longer in sabakan's list`);
  for (const n of missingWorkers) plan.changes.push(`remove worker ${n.address}: no longer in sabakan's list`);
  return plan.changes.length > 0 ? "acted" : "skip";
}

/** Step "increase control plane nodes": fill adds (or promotes) the missing ones. */
export function increaseControlPlanes(plan: Plan): StepResult {
  return plan.cps.length < plan.constraints.controlPlaneCount ? "acted" : "skip";
}

const removalReason = (plan: Plan, m: ClusterMachine, sameRack: number) =>
  `lowest removal score (${m.state}, ${sameRack} of its group in rack ${m.rack}, ${lifetimeDays(m, plan.now)} days to retirement)`;

/** Demotes a control plane to a worker if a template takes its role and maximum-workers allows; else removes it. */
function demoteOrRemove(plan: Plan, m: ClusterMachine, why: string): void {
  const { maximumWorkers } = plan.constraints;
  if (workerTemplateOf(plan, m) >= 0 && (maximumWorkers === 0 || plan.workers.length < maximumWorkers)) {
    plan.changes.push(`change control plane ${addressOf(m)} (serial ${m.serial}) to worker: ${why}`);
    addWorker(plan, m);
  } else {
    const cause = workerTemplateOf(plan, m) < 0 ? `no worker template for role ${JSON.stringify(m.role)}` : `maximum-workers is ${maximumWorkers}`;
    plan.changes.push(`remove control plane ${addressOf(m)} (serial ${m.serial}): ${why}; ${cause}`);
  }
}

/** Step "decrease control plane nodes": demote the lowest-scored ones, then trim workers to maximum-workers. */
export function decreaseControlPlanes(plan: Plan): StepResult {
  const { controlPlaneCount, maximumWorkers } = plan.constraints;
  if (plan.cps.length <= controlPlaneCount) return "skip";
  while (plan.cps.length > controlPlaneCount) {
    const racks = countByRack(plan.cps);
    const m = pickLowest(plan.cps, racks, plan.now) as ClusterMachine;
    const why = `control-plane-count is ${controlPlaneCount}, the cluster has ${plan.cps.length}; ${removalReason(plan, m, racks.get(m.rack) ?? 0)}`;
    removeControlPlane(plan, m);
    demoteOrRemove(plan, m, why);
  }
  while (maximumWorkers > 0 && plan.workers.length > maximumWorkers) {
    const m = lowestWorker(plan);
    const sameRack = plan.workerRacks[workerTemplateOf(plan, m)]?.get(m.rack) ?? 0;
    plan.changes.push(
      `remove worker ${addressOf(m)} (serial ${m.serial}): maximum-workers is ${maximumWorkers}, the cluster has ${plan.workers.length}; ${removalReason(plan, m, sameRack)}`,
    );
    removeWorker(plan, m);
  }
  return "acted";
}

function lowestWorker(plan: Plan): ClusterMachine {
  let worst = plan.workers[0] as ClusterMachine;
  let worstScore = Infinity;
  for (const m of plan.workers) {
    const s = removalScore(m, plan.workerRacks[workerTemplateOf(plan, m)]?.get(m.rack) ?? 0, plan.now);
    if (s < worstScore || (s === worstScore && bySerial(m, worst) < 0)) [worst, worstScore] = [m, s];
  }
  return worst;
}

/**
 * Why a control plane must be replaced now, or null: its machine has been neither HEALTHY, UPDATING nor
 * UNINITIALIZED for longer than wait-seconds-to-replace-control-plane and is not in a planned reboot (see
 * {@link judgePlanControlPlane}), or its Node has an intolerable taint (at once: the grace is for machine states).
 */
function badControlPlane(plan: Plan, m: ClusterMachine): string | null {
  const verdict = judgePlanControlPlane(plan, m);
  if (verdict.kind === "replace") return verdict.reason;
  const taints = plan.nodeTaints.get(addressOf(m));
  if (hasIntolerableTaint(taints, plan.template.control_plane_tolerations)) {
    const keys = (taints ?? []).map((t) => t.key).join(", ");
    return `node has an intolerable taint (${keys})`;
  }
  return null;
}

/**
 * Step "replace control nodes": the first bad control plane (by serial) is demoted (or, at maximum-workers,
 * swapped with a promoted worker) and fill adds a new control plane; one still waiting out its grace or rebooting
 * is skipped. With a single control plane it does not apply.
 */
export function replaceControlPlane(plan: Plan): StepResult {
  if (plan.cps.length < 2) return "skip";
  let bad: ClusterMachine | undefined;
  let reason: string | null = null;
  for (const m of [...plan.cps].sort(bySerial)) {
    reason = badControlPlane(plan, m);
    if (reason !== null) {
      bad = m;
      break;
    }
  }
  if (bad === undefined || reason === null) return "skip";
  removeControlPlane(plan, bad);
  const { maximumWorkers } = plan.constraints;
  if (maximumWorkers !== 0 && plan.workers.length >= maximumWorkers) {
    const promote = selectControlPlane(plan, plan.workers);
    if (promote) {
      plan.changes.push(
        `promote worker ${addressOf(promote)} (serial ${promote.serial}) to control plane: it replaces ${addressOf(bad)}; maximum-workers is ${maximumWorkers}`,
      );
      removeWorker(plan, promote);
      addControlPlane(plan, promote);
    }
  }
  demoteOrRemove(plan, bad, `replace control plane: ${reason}`);
  return "acted";
}

/** Step "increase worker nodes": add workers while healthy ones are below minimum-workers and below maximum-workers. */
export function increaseWorkers(plan: Plan): StepResult {
  const { minimumWorkers, maximumWorkers } = plan.constraints;
  let healthy = plan.workers.filter((m) => m.state === "HEALTHY").length;
  let added = false;
  while (healthy < minimumWorkers && (maximumWorkers === 0 || plan.workers.length < maximumWorkers)) {
    const pick = selectWorker(plan);
    if (!pick) break;
    plan.changes.push(describeWorkerAdd(plan, pick.m, pick.t, `${healthy} healthy workers, minimum-workers is ${minimumWorkers}`));
    addWorker(plan, pick.m);
    healthy++;
    added = true;
  }
  return added ? "acted" : "skip";
}

/** Step "decrease worker nodes": remove (or replace) the first worker RETIRED for at least 300 s, if it can go. */
export function decreaseWorkers(plan: Plan): StepResult {
  const retired = [...plan.workers].sort(bySerial).find((m) => m.state === "RETIRED" && m.durationSeconds >= RETIRED_WAIT_SECONDS);
  if (!retired) return "skip";
  const { minimumWorkers } = plan.constraints;
  const remain = plan.workers.length - 1;
  if (remain < minimumWorkers && !selectWorker(plan)) return "skip";
  const after = remain >= minimumWorkers ? `${remain} workers remain, minimum-workers is ${minimumWorkers}` : "a new machine replaces it";
  plan.changes.push(
    `remove retired worker ${addressOf(retired)} (serial ${retired.serial}): RETIRED for ${retired.durationSeconds} s (>= ${RETIRED_WAIT_SECONDS} s); ${after}`,
  );
  removeWorker(plan, retired);
  return "acted";
}

/** Runs fill after a step that acted, turning its failure into the step's error. */
export function afterStep(plan: Plan, result: StepResult): StepResult {
  if (result !== "acted") return result;
  const error = fill(plan);
  return error === null ? "acted" : { error };
}
