import { DEFAULT_CONSTRAINTS } from "../shared/constraints.js";
import { generateAllHealthy, updateAllHealthy } from "./all-healthy-generate.js";
import { generate } from "./generate.js";
import { stableJson } from "./stable-json.js";
import { templateSpareNodeTaintKey } from "./template.js";
import { update } from "./update.js";
import {
  STATE_TAINT,
  type ClusterConstraints,
  type ClusterMachine,
  type ClusterNode,
  type ClusterTemplate,
  type GeneratedCluster,
  type GenerationResult,
  type NodeTaints,
  type RebootingNodes,
  type Waiting,
} from "./types.js";
import { DEFAULT_SELECTION_POLICY, type SelectionPolicy } from "./worker-selection.js";

/** What one generation round found and gathered. */
export interface GenerationInput {
  readonly template: ClusterTemplate;
  /** The configuration in force; null before the first successful generation. */
  readonly current: GeneratedCluster | null;
  readonly machines: readonly ClusterMachine[];
  readonly nodeTaints: NodeTaints;
  /** Nodes carrying `cke.cybozu.com/reboot: "true"`: their control planes are not replaced. */
  readonly rebootingNodes: RebootingNodes;
  /** minimumWorkersRate (all_healthy only) absent: CKE's default. */
  readonly constraints: ClusterConstraints & { readonly minimumWorkersRate?: number };
  /**
   * The config's `sabakan.worker_selection` and `spare_node_taint_key`; absent: weighted. A null spare key falls back
   * to the template's `sabakan.spare_node_taint_key`, as CKE reads it; the config's key overrides the template's.
   */
  readonly policy?: SelectionPolicy;
  /**
   * The template was set after the configuration in force was made (CKE: the template's revision differs from the
   * one stored with the cluster); absent: false.
   */
  readonly templateChanged?: boolean;
}

/**
 * A new configuration with its reasons, nothing to change, or why no configuration could be made. `waiting` names
 * the control planes kept while they wait out their grace or a planned reboot, and when the next round is due.
 */
export type GenerationDecision =
  | { readonly kind: "generated"; readonly cluster: GeneratedCluster; readonly changes: readonly string[]; readonly waiting: Waiting }
  | { readonly kind: "unchanged"; readonly waiting: Waiting }
  | { readonly kind: "failed"; readonly error: string };

/** The state taint of a node (`cke.cybozu.com/state`) as text, "" for none. */
const stateTaintOf = (n: ClusterNode): string => {
  const t = n.taints.find((taint) => taint.key === STATE_TAINT);
  return t === undefined ? "" : `${t.value ?? ""}:${t.effect}`;
};

/**
 * Tells whether `next` differs from `current` the way one of CKE's maintenance steps changes a cluster (remove
 * non-existent nodes, increase or decrease control planes, replace a control plane, increase or decrease workers,
 * taint nodes: sabakan/generator.go Update): a node added or removed, a node's role, or a node's state taint. A
 * label, annotation or template-taint difference alone is none: CKE renders nodes afresh only when a step applies
 * or the template changed (Regenerate), so a sabakan label change alone makes no new configuration.
 */
export function changedByMaintenance(current: GeneratedCluster, next: GeneratedCluster): boolean {
  if (current.nodes.length !== next.nodes.length) return true;
  const before = new Map(current.nodes.map((n) => [n.address, n]));
  return next.nodes.some((n) => {
    const old = before.get(n.address);
    return old === undefined || old.control_plane !== n.control_plane || stateTaintOf(old) !== stateTaintOf(n);
  });
}

/**
 * Decides one generation round as CKE's sabakan/integrate.go does: initialization (`generate`) when there is no
 * configuration yet, maintenance (`update`) otherwise, each by the policy's rules (weighted, or all_healthy's
 * `generateAllHealthy`/`updateAllHealthy`). Maintenance makes a new configuration only when one of CKE's steps
 * applies ({@link changedByMaintenance}) or the template changed since the configuration in force (CKE's Regenerate:
 * the same nodes rendered from the new template); otherwise it is `unchanged`, so a quiet fleet, or one whose
 * machines only changed labels, never makes a new generation. An error is `failed` and the configuration in force
 * stays as it is. The reasons of a new configuration end with the control planes that wait (grace or planned
 * reboot), so the record says why they stay.
 */
export function decideGeneration(input: GenerationInput, now: number): GenerationDecision {
  const { template, current, machines, nodeTaints, rebootingNodes, constraints } = input;
  const policy = input.policy ?? DEFAULT_SELECTION_POLICY;
  const { workerSelection } = policy;
  const spareNodeTaintKey = policy.spareNodeTaintKey ?? templateSpareNodeTaintKey(template);
  const allHealthy =
    workerSelection === "all_healthy" ? { ...constraints, minimumWorkersRate: constraints.minimumWorkersRate ?? DEFAULT_CONSTRAINTS.minimumWorkersRate } : null;
  if (current === null) {
    const result: GenerationResult = allHealthy
      ? generateAllHealthy(template, machines, allHealthy, spareNodeTaintKey, now, nodeTaints)
      : generate(template, machines, constraints, now, nodeTaints);
    if (!result.ok) return { kind: "failed", error: `cannot initialize the cluster: ${result.error}` };
    const changes = [`initialize the cluster from the template: ${result.cluster.nodes.length} nodes`, ...result.changes];
    return { kind: "generated", cluster: result.cluster, changes, waiting: result.waiting };
  }
  const result: GenerationResult = allHealthy
    ? updateAllHealthy(current, template, machines, nodeTaints, allHealthy, spareNodeTaintKey, now)
    : update(current, { template, machines, nodeTaints, constraints, now, rebootingNodes });
  if (!result.ok) return { kind: "failed", error: `cannot update the cluster: ${result.error}` };
  const templateChanged = input.templateChanged === true;
  if (!templateChanged && !changedByMaintenance(current, result.cluster)) return { kind: "unchanged", waiting: result.waiting };
  if (stableJson(result.cluster) === stableJson(current)) return { kind: "unchanged", waiting: result.waiting };
  // update() reports every difference it makes; this covers any it does not name, so none goes unrecorded.
  const changes = result.changes.length > 0 ? result.changes : ["update the cluster configuration"];
  const why = templateChanged && !changedByMaintenance(current, result.cluster) ? ["regenerate the same nodes from the new template"] : [];
  return { kind: "generated", cluster: result.cluster, changes: [...why, ...changes, ...result.waiting.reasons], waiting: result.waiting };
}
