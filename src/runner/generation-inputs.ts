import type { ClusterNode } from "../adapters/ports.js";
import { canonicalAddresses } from "../domain/shared/address.js";
import type { GenerationInput } from "../domain/cluster/generation-decision.js";
import type { StoredClusterTemplate } from "../domain/cluster/generation-record.js";
import { hasRebootMark } from "../domain/shared/node-reboot.js";
import { parseTemplate } from "../domain/cluster/template.js";
import type { NodeTaints, RebootingNodes, Taint } from "../domain/cluster/types.js";
import type { SelectionPolicy } from "../domain/cluster/worker-selection.js";
import type { ClusterGeneratorDeps } from "./cluster-generator.js";

// The inputs of a generation round or an adoption, as sabakan/integrate.go's runGenerator reads them.

/**
 * A round's inputs, or why there are none: nothing to run (skipped), or a failure, `decided` when it is the
 * generator's own (the stored template) rather than sabakan's or Kubernetes' answer.
 */
export type Gathered =
  | {
      readonly ok: true;
      readonly input: Omit<GenerationInput, "current" | "templateChanged"> & { readonly policy: SelectionPolicy };
      readonly template: StoredClusterTemplate;
    }
  | { readonly ok: false; readonly skipped: string }
  | { readonly ok: false; readonly error: string; readonly decided: boolean };

/** Kubernetes Node taints by node name and by each internal IP in canonical form (CKE names nodes by address). */
export function taintsByNode(nodes: readonly ClusterNode[]): NodeTaints {
  const taints = new Map<string, readonly Taint[]>();
  for (const node of nodes) taints.set(node.name, node.taints);
  for (const node of nodes) for (const ip of canonicalAddresses(node.internalIPs)) if (!taints.has(ip)) taints.set(ip, node.taints);
  return taints;
}

/** The names and internal IPs of the Nodes CKE's reboot queue is rebooting (`cke.cybozu.com/reboot: "true"`). */
export function rebootingByNode(nodes: readonly ClusterNode[]): RebootingNodes {
  const rebooting = new Set<string>();
  for (const node of nodes.filter(hasRebootMark)) {
    rebooting.add(node.name);
    for (const ip of canonicalAddresses(node.internalIPs)) rebooting.add(ip);
  }
  return rebooting;
}

/**
 * Reads what a generation round decides from: the template, sabakan's machines (with the cluster variables) and the
 * Nodes' taints and reboot marks; or why there is nothing to decide from. `forAdoption`: read even while generation
 * is disabled.
 */
export async function gatherGenerationInputs(deps: ClusterGeneratorDeps, policy: SelectionPolicy, forAdoption: boolean): Promise<Gathered> {
  const stored = deps.settings.clusterTemplate();
  const skip = (reason: string): Gathered => ({ ok: false, skipped: reason });
  if (!forAdoption && !deps.settings.clusterGenerationEnabled()) return skip("cluster generation is disabled (kintsugi sabakan enable turns it on)");
  if (stored === null) return skip("no cluster template is set (kintsugi sabakan set-template FILE sets one)");
  if (!deps.machines) return skip("sabakan is not configured (set sabakan.url in the config file)");
  const parsed = parseTemplate(stored.text);
  if (!parsed.ok) return { ok: false, error: `the stored cluster template is invalid: ${parsed.errors.join("; ")}`, decided: true };
  let machines;
  try {
    machines = await deps.machines.searchMachines(deps.settings.clusterVariables());
  } catch (err) {
    return { ok: false, error: (err as Error).message, decided: false };
  }
  let nodeTaints: NodeTaints = new Map();
  let rebootingNodes: RebootingNodes = new Set();
  if (deps.nodes) {
    try {
      const nodes = await deps.nodes.listNodes();
      nodeTaints = taintsByNode(nodes);
      rebootingNodes = rebootingByNode(nodes);
    } catch (err) {
      // Without the taints a tainted machine could be made a control plane: change nothing.
      return { ok: false, error: `cannot list Kubernetes nodes: ${(err as Error).message}`, decided: false };
    }
  }
  const input = { template: parsed.template, machines, nodeTaints, rebootingNodes, constraints: deps.settings.constraints(), policy };
  return { ok: true, input, template: stored };
}
