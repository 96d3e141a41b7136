import { parseAddress } from "../shared/address.js";
import { ROLE_LABEL, type ClusterMachine, type GeneratedCluster } from "./types.js";

const count = (roles: readonly string[]): Map<string, number> => {
  const counts = new Map<string, number>();
  for (const role of roles) counts.set(role, (counts.get(role) ?? 0) + 1);
  return counts;
};

/** The workers (non-control-plane nodes) of a generated cluster by their `cke.cybozu.com/role` label. */
export function workersByRole(cluster: GeneratedCluster): Map<string, number> {
  return count(cluster.nodes.filter((n) => !n.control_plane).map((n) => n.labels[ROLE_LABEL] ?? ""));
}

/**
 * Healthy machines with an address (an IP address, compared in canonical form) that no node of the cluster uses, by role: what the generator could still add
 * (CKE's `unused_machines`). Every role of `machines` is present, with 0 when all of its machines are in use.
 */
export function unusedMachinesByRole(machines: readonly ClusterMachine[], cluster: GeneratedCluster | null): Map<string, number> {
  const used = new Set((cluster?.nodes ?? []).map((n) => n.address));
  const counts = new Map<string, number>(machines.map((m) => [m.role, 0]));
  for (const m of machines) {
    const first = m.ipv4[0];
    const parsed = first === undefined ? null : parseAddress(first);
    if (m.state === "HEALTHY" && parsed?.ok && !used.has(parsed.address)) counts.set(m.role, (counts.get(m.role) ?? 0) + 1);
  }
  return counts;
}
