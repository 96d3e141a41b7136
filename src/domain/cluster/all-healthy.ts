import type { MachineState } from "../sabakan/machine-params.js";
import { machineToNode } from "./node.js";
import type { ClusterMachine, ClusterNode, NodeTemplate, Taint } from "./types.js";

/*
 * The rules of CKE v1.32.2 and later's worker selection ("all_healthy"), after cybozu-go/cke sabakan/generator.go
 * (increaseWorker, decreaseWorker, selectControlPlane, MachineToNode). all-healthy-generate.ts applies them when
 * `sabakan.worker_selection` is all_healthy.
 */

/** The taint key CKE puts the sabakan state of a machine under. */
export const STATE_TAINT_KEY = "cke.cybozu.com/state";

/**
 * How many workers the cluster should have under all_healthy: every healthy machine that is not a control plane.
 * Never negative.
 */
export function allHealthyWorkerTarget(healthyMachines: number, controlPlanes: number): number {
  return Math.max(0, healthyMachines - controlPlanes);
}

/**
 * Whether one retired worker may be removed: only while the workers left stay at or above `minimumWorkersRate`
 * percent of all machines sabakan lists. An empty machine list never allows removal.
 */
export function mayRemoveRetiredWorker(workers: number, machines: number, minimumWorkersRate: number): boolean {
  if (machines <= 0 || workers <= 0) return false;
  return ((workers - 1) / machines) * 100 >= minimumWorkersRate;
}

/**
 * The control-plane candidates under all_healthy: the spare nodes among them when there are any, else all of them.
 * Order is kept.
 */
export function preferSpareNodes<T>(candidates: readonly T[], isSpare: (candidate: T) => boolean): readonly T[] {
  const spare = candidates.filter(isSpare);
  return spare.length > 0 ? spare : candidates;
}

/** The taint CKE adds to a node for its machine's sabakan state, if any. */
export function stateTaint(state: MachineState): Taint | undefined {
  switch (state) {
    case "UNREACHABLE":
      return { key: STATE_TAINT_KEY, value: "unreachable", effect: "NoSchedule" };
    case "RETIRING":
      return { key: STATE_TAINT_KEY, value: "retiring", effect: "NoExecute" };
    case "RETIRED":
      return { key: STATE_TAINT_KEY, value: "retired", effect: "NoExecute" };
    default:
      return undefined;
  }
}

/** The `cke.cybozu.com/retire-year` label value: the UTC year of the retire date (epoch milliseconds). */
export function retireYearLabel(retireDate: number): string {
  return String(new Date(retireDate).getUTCFullYear());
}

/** The zone label CKE stopped writing in v1.32.2. */
const FAILURE_DOMAIN_LABEL = "failure-domain.beta.kubernetes.io/zone";

/**
 * CKE v1.32.2 and later's MachineToNode: the weighted rendering (see {@link machineToNode}) with the
 * `cke.cybozu.com/retire-year` label, without `failure-domain.beta.kubernetes.io/zone`, and with the state taint of
 * {@link stateTaint} (unreachable machines too).
 */
export function allHealthyNode(m: ClusterMachine, tmpl: NodeTemplate, controlPlane: boolean): ClusterNode {
  const node = machineToNode(m, tmpl, controlPlane);
  const labels: Record<string, string> = { ...node.labels, "cke.cybozu.com/retire-year": retireYearLabel(m.retireDate) };
  delete labels[FAILURE_DOMAIN_LABEL];
  const taint = stateTaint(m.state);
  return { ...node, labels, taints: taint ? [...tmpl.taints, taint] : [...tmpl.taints] };
}
