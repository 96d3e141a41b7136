import { stringify } from "yaml";
import type { ClusterNode, GeneratedCluster } from "./types.js";

const sortedKeys = (record: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.keys(record).sort().map((k) => [k, record[k] as string]));

/** A node in cluster.yml's key order; empty labels, annotations and taints are left out, as CKE's omitempty does. */
function nodeDocument(n: ClusterNode): Record<string, unknown> {
  const doc: Record<string, unknown> = { address: n.address };
  if (n.hostname !== undefined && n.hostname !== "") doc["hostname"] = n.hostname;
  doc["user"] = n.user;
  doc["control_plane"] = n.control_plane;
  if (Object.keys(n.labels).length > 0) doc["labels"] = sortedKeys(n.labels);
  if (Object.keys(n.annotations).length > 0) doc["annotations"] = sortedKeys(n.annotations);
  if (n.taints.length > 0) doc["taints"] = n.taints.map((t) => ({ key: t.key, ...(t.value !== undefined && t.value !== "" && { value: t.value }), effect: t.effect }));
  return doc;
}

/** The generated cluster as a plain object in cluster.yml's shape: name, nodes, the other keys in template order. */
export function clusterDocument(cluster: GeneratedCluster): Record<string, unknown> {
  const doc: Record<string, unknown> = { name: cluster.name, nodes: cluster.nodes.map(nodeDocument) };
  if (cluster.control_plane_tolerations.length > 0) doc["control_plane_tolerations"] = [...cluster.control_plane_tolerations];
  doc["service_subnet"] = cluster.service_subnet;
  for (const [k, v] of Object.entries(cluster.extra)) doc[k] = v;
  return doc;
}

/**
 * Renders a generated cluster as CKE's cluster.yml: the template's cluster-wide keys and one entry per node with
 * address, user, control_plane, labels and annotations (keys sorted, as Go's YAML encoder writes maps) and taints.
 * Deterministic: the same cluster always gives the same text.
 */
export function clusterYaml(cluster: GeneratedCluster): string {
  return stringify(clusterDocument(cluster), { lineWidth: 0, aliasDuplicateObjects: false });
}
