import { stringify } from "../shared/yaml.js";
import type { ClusterNode, ClusterTemplate, GeneratedCluster, NodeTemplate } from "./types.js";

// Words YAML 1.1 (Go's yaml.v2, behind sigs.k8s.io/yaml and so ckecli) or YAML 1.2 reads as booleans or null.
const KEYWORDS = new Set(["y", "n", "yes", "no", "true", "false", "on", "off", "null", "~"]);
const SAFE = /^[A-Za-z0-9_][A-Za-z0-9_./@-]*$/;
const NUMBER_LIKE = /^[-+]?(\d[\d_]*(\.[\d_]*)?|\.\d[\d_]*)([eE][-+]?\d+)?$|^0[xob]/i;
const DATE_LIKE = /^\d{4}-\d\d?-\d\d?/;

/**
 * A string as a YAML scalar: plain when no YAML 1.1 or 1.2 parser could read it as anything but that string,
 * double-quoted (JSON escapes are YAML escapes) otherwise, so `"0"`, `"on"` and dates stay strings for every reader.
 */
export function yamlString(text: string): string {
  const plain = SAFE.test(text) && !KEYWORDS.has(text.toLowerCase()) && !NUMBER_LIKE.test(text) && !DATE_LIKE.test(text);
  return plain ? text : JSON.stringify(text);
}

function mapLines(record: Readonly<Record<string, string>>, indent: string, out: string[]): void {
  for (const key of Object.keys(record).sort()) out.push(`${indent}${yamlString(key)}: ${yamlString(record[key] as string)}`);
}

function nodeLines(n: ClusterNode, out: string[]): void {
  out.push(`  - address: ${yamlString(n.address)}`);
  if (n.hostname !== undefined && n.hostname !== "") out.push(`    hostname: ${yamlString(n.hostname)}`);
  out.push(`    user: ${yamlString(n.user)}`, `    control_plane: ${n.control_plane}`);
  if (Object.keys(n.labels).length > 0) {
    out.push("    labels:");
    mapLines(n.labels, "      ", out);
  }
  if (Object.keys(n.annotations).length > 0) {
    out.push("    annotations:");
    mapLines(n.annotations, "      ", out);
  }
  if (n.taints.length > 0) {
    out.push("    taints:");
    for (const t of n.taints) {
      out.push(`      - key: ${yamlString(t.key)}`);
      if (t.value !== undefined && t.value !== "") out.push(`        value: ${yamlString(t.value)}`);
      out.push(`        effect: ${yamlString(t.effect)}`);
    }
  }
}

/** A node in cluster.yml's key order; empty labels, annotations and taints are left out, as CKE's omitempty does. */
function nodeDocument(n: ClusterNode): Record<string, unknown> {
  const doc: Record<string, unknown> = { address: n.address };
  if (n.hostname !== undefined && n.hostname !== "") doc["hostname"] = n.hostname;
  doc["user"] = n.user;
  doc["control_plane"] = n.control_plane;
  const sorted = (record: Readonly<Record<string, string>>) =>
    Object.fromEntries(
      Object.keys(record)
        .sort()
        .map((k) => [k, record[k] as string]),
    );
  if (Object.keys(n.labels).length > 0) doc["labels"] = sorted(n.labels);
  if (Object.keys(n.annotations).length > 0) doc["annotations"] = sorted(n.annotations);
  if (n.taints.length > 0)
    doc["taints"] = n.taints.map((t) => ({ key: t.key, ...(t.value !== undefined && t.value !== "" && { value: t.value }), effect: t.effect }));
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
 * Renders a generated cluster as CKE's cluster.yml: name, one entry per node with address, user, control_plane,
 * labels and annotations (keys sorted, as Go's YAML encoder writes maps) and taints, control_plane_tolerations,
 * service_subnet, then the template's other keys as given. Deterministic. The nodes are written directly (a YAML
 * library's document model costs a second for 8,000 nodes); the template's free-form keys go through the library.
 */
export function clusterYaml(cluster: GeneratedCluster): string {
  const out: string[] = [`name: ${yamlString(cluster.name)}`];
  if (cluster.nodes.length === 0) out.push("nodes: []");
  else out.push("nodes:");
  for (const n of cluster.nodes) nodeLines(n, out);
  if (cluster.control_plane_tolerations.length > 0) {
    out.push("control_plane_tolerations:");
    for (const t of cluster.control_plane_tolerations) out.push(`  - ${yamlString(t)}`);
  }
  out.push(`service_subnet: ${yamlString(cluster.service_subnet)}`);
  const text = `${out.join("\n")}\n`;
  if (Object.keys(cluster.extra).length === 0) return text;
  // YAML 1.1 rules, so that Go's yaml.v2 reads the template's strings ("on", "1:20") back as strings too.
  return text + stringify(cluster.extra, { version: "1.1", lineWidth: 0, aliasDuplicateObjects: false });
}

/** A node template as kintsugi reads it; empty labels, annotations and taints are left out, as in nodeDocument. */
function nodeTemplateDocument(n: NodeTemplate): Record<string, unknown> {
  return {
    user: n.user,
    control_plane: n.control_plane,
    ...(Object.keys(n.labels).length > 0 && { labels: n.labels }),
    ...(Object.keys(n.annotations).length > 0 && { annotations: n.annotations }),
    ...(n.taints.length > 0 && { taints: n.taints }),
  };
}

/**
 * The parsed template as YAML, as `ckecli sabakan get-template` prints the template it parsed (sigs.k8s.io/yaml over
 * Go's yaml.v2): comments and layout gone, keys sorted at every level, sequences not indented under their key, strings
 * quoted where YAML 1.1 would read them as something else. The template's keys only: ckecli also prints CKE's
 * defaults for every section the template leaves out (options, reboot, ...), which kintsugi does not model. The
 * output is a template again (set-template takes it back).
 */
export function templateYaml(template: ClusterTemplate): string {
  const doc: Record<string, unknown> = {
    ...template.extra,
    name: template.name,
    nodes: template.nodes.map(nodeTemplateDocument),
    service_subnet: template.service_subnet,
  };
  if (template.control_plane_tolerations.length > 0) doc["control_plane_tolerations"] = template.control_plane_tolerations;
  return stringify(doc, { version: "1.1", sortMapEntries: true, indentSeq: false, lineWidth: 0, aliasDuplicateObjects: false });
}
