import { DEFAULT_CONSTRAINTS } from "../shared/constraints.js";
import { generateAllHealthy, updateAllHealthy } from "./all-healthy-generate.js";
import { generate } from "./generate.js";
import { stableJson } from "./stable-json.js";
import { update } from "./update.js";
import type { ClusterConstraints, ClusterMachine, ClusterTemplate, GeneratedCluster, GenerationResult, NodeTaints, RebootingNodes, Waiting } from "./types.js";
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
  /** The config's `sabakan.worker_selection` and `spare_node_taint_key`; absent: weighted. */
  readonly policy?: SelectionPolicy;
}

/**
 * A new configuration with its reasons, nothing to change, or why no configuration could be made. `waiting` names
 * the control planes kept while they wait out their grace or a planned reboot, and when the next round is due.
 */
export type GenerationDecision =
  | { readonly kind: "generated"; readonly cluster: GeneratedCluster; readonly changes: readonly string[]; readonly waiting: Waiting }
  | { readonly kind: "unchanged"; readonly waiting: Waiting }
  | { readonly kind: "failed"; readonly error: string };

/**
 * Decides one generation round: initialization (`generate`) when there is no configuration yet, maintenance
 * (`update`) otherwise, each by the policy's rules (weighted, or all_healthy's `generateAllHealthy`/`updateAllHealthy`). A maintenance result equal to the configuration in force is `unchanged`, so a quiet fleet
 * never makes a new generation; an error is `failed` and the configuration in force stays as it is. The reasons of a
 * new configuration end with the control planes that wait (grace or planned reboot), so the record says why they stay.
 */
export function decideGeneration(input: GenerationInput, now: number): GenerationDecision {
  const { template, current, machines, nodeTaints, rebootingNodes, constraints } = input;
  const { workerSelection, spareNodeTaintKey } = input.policy ?? DEFAULT_SELECTION_POLICY;
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
  if (stableJson(result.cluster) === stableJson(current)) return { kind: "unchanged", waiting: result.waiting };
  // update() reports every difference it makes; this covers any it does not name, so none goes unrecorded.
  const changes = result.changes.length > 0 ? result.changes : ["update the cluster configuration"];
  return { kind: "generated", cluster: result.cluster, changes: [...changes, ...result.waiting.reasons], waiting: result.waiting };
}
