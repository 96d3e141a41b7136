import { workerTemplateIndex } from "./plan.js";
import { ROLE_LABEL, type ClusterTemplate, type GeneratedCluster } from "./types.js";

/** A worker of the cluster whose role no worker template of a template takes. */
export interface StrandedWorker {
  readonly address: string;
  readonly role: string;
}

const SHOWN = 10;

/** Tells whether a template has a worker template for machines of `role` (CKE's rule, {@link workerTemplateIndex}). */
export function takesRole(template: ClusterTemplate, role: string): boolean {
  const roles = template.nodes.filter((n) => !n.control_plane).map((n) => n.labels[ROLE_LABEL] ?? "");
  return workerTemplateIndex(roles, role) >= 0;
}

/**
 * The workers of the configuration in force (by their `cke.cybozu.com/role` label) that `template` has no worker
 * template for. Setting such a template would make the next round drop them all at once, so it is refused; empty
 * when there is no configuration yet.
 */
export function strandedWorkers(template: ClusterTemplate, current: GeneratedCluster | null): StrandedWorker[] {
  return (current?.nodes ?? [])
    .filter((n) => !n.control_plane && !takesRole(template, n.labels[ROLE_LABEL] ?? ""))
    .map((n) => ({ address: n.address, role: n.labels[ROLE_LABEL] ?? "" }));
}

/**
 * Why stranded workers are not removed, and what the operator can do instead, naming their roles and (the first
 * ten) addresses: `2 workers have a role no node template takes (role "gpu": 10.0.1.5, 10.0.2.5); ...`.
 */
export function describeStrandedWorkers(stranded: readonly StrandedWorker[]): string {
  const byRole = new Map<string, string[]>();
  for (const w of stranded) byRole.set(w.role, [...(byRole.get(w.role) ?? []), w.address]);
  let shown = 0;
  const groups = [...byRole.keys()].sort().map((role) => {
    const addresses = (byRole.get(role) as string[]).sort();
    const listed = addresses.slice(0, Math.max(0, SHOWN - shown));
    shown += listed.length;
    const more = addresses.length - listed.length;
    return `role ${JSON.stringify(role)}: ${[...listed, ...(more > 0 ? [`${more} more`] : [])].join(", ")}`;
  });
  const n = stranded.length;
  return (
    `${n} ${n === 1 ? "worker has" : "workers have"} a role no node template takes (${groups.join("; ")}); ` +
    "nodes are not dropped because of a template: add a node template for the role, or first leave those machines " +
    "out with the cluster variables (kintsugi sabakan set-variables), which removes them as no longer listed"
  );
}
