import { isIP } from "node:net";
import { parse as parseYaml } from "../shared/yaml.js";
import { isCidr } from "./template.js";
import { TAINT_EFFECTS, type ClusterNode, type GeneratedCluster, type Taint, type TaintEffect } from "./types.js";

/** A cluster configuration read from cluster.yml, or every reason it is not one (each naming the node or key). */
export type ClusterFileResult = { readonly ok: true; readonly cluster: GeneratedCluster } | { readonly ok: false; readonly errors: readonly string[] };

const CLUSTER_KEYS = new Set(["name", "nodes", "service_subnet", "control_plane_tolerations"]);
const NODE_KEYS = new Set(["address", "hostname", "user", "control_plane", "labels", "annotations", "taints"]);
const TAINT_KEYS = new Set(["key", "value", "effect", "timeAdded"]);
/** Errors listed at most; the rest are counted (a file of 10,000 broken nodes makes one readable message). */
const SHOWN_ERRORS = 20;
type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads a cluster configuration as `ckecli cluster get` prints it (CKE's cke.Cluster through sigs.k8s.io/yaml: every
 * field written, Go's zero values as `""`, `null` and `false`) or as `kintsugi cluster get` does; YAML or JSON. The
 * checks are CKE's Cluster.Validate for a cluster (cluster.go): a name, service_subnet a CIDR, every node an IP
 * address (no two alike) and a user; plus well-formed labels, annotations and taints. Keys CKE's Cluster has beyond
 * name, nodes, service_subnet and control_plane_tolerations are kept as they are, as a template's are.
 */
export function parseClusterFile(text: string): ClusterFileResult {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (e) {
    return { ok: false, errors: [`the cluster configuration is neither YAML nor JSON: ${(e as Error).message.split("\n")[0]}`] };
  }
  if (!isObject(data)) return { ok: false, errors: ["the cluster configuration must be a mapping with name, nodes and service_subnet"] };
  const errors: string[] = [];
  if (typeof data.name !== "string" || data.name === "") errors.push("name: must be a non-empty string");
  if (typeof data.service_subnet !== "string" || !isCidr(data.service_subnet)) {
    errors.push(`service_subnet: must be a CIDR such as 10.68.0.0/16, got ${JSON.stringify(data.service_subnet ?? null)}`);
  }
  const tolerations = data.control_plane_tolerations ?? [];
  if (!Array.isArray(tolerations) || !tolerations.every((t) => typeof t === "string" && t !== "")) {
    errors.push("control_plane_tolerations: must be a list of taint keys");
  }
  if (!Array.isArray(data.nodes) || data.nodes.length === 0) errors.push("nodes: must be a non-empty list of nodes");
  const nodes: ClusterNode[] = [];
  const seen = new Set<string>();
  (Array.isArray(data.nodes) ? data.nodes : []).forEach((raw, i) => {
    const node = checkNode(raw, i, errors);
    if (node === null) return;
    if (seen.has(node.address)) errors.push(`nodes[${i}]: duplicate node address ${node.address}`);
    seen.add(node.address);
    nodes.push(node);
  });
  if (errors.length > 0) {
    const more = errors.length - SHOWN_ERRORS;
    return { ok: false, errors: more > 0 ? [...errors.slice(0, SHOWN_ERRORS), `and ${more} more`] : errors };
  }
  const extra: Raw = {};
  for (const [k, v] of Object.entries(data)) if (!CLUSTER_KEYS.has(k)) extra[k] = v;
  const cluster: GeneratedCluster = {
    name: data.name as string,
    service_subnet: data.service_subnet as string,
    control_plane_tolerations: tolerations as string[],
    extra,
    nodes,
  };
  return { ok: true, cluster };
}

function checkNode(raw: unknown, i: number, errors: string[]): ClusterNode | null {
  const at = `nodes[${i}]`;
  if (!isObject(raw)) return (errors.push(`${at}: must be a mapping`), null);
  const before = errors.length;
  const address = typeof raw.address === "string" ? raw.address : "";
  const name = address === "" ? at : `${at} (${address})`;
  if (isIP(address) === 0) errors.push(`${at}: address must be an IP address, got ${JSON.stringify(raw.address ?? null)}`);
  for (const key of Object.keys(raw)) if (!NODE_KEYS.has(key)) errors.push(`${name}: unknown key ${JSON.stringify(key)}`);
  if (typeof raw.user !== "string" || raw.user === "") errors.push(`${name}: user must be a non-empty string`);
  if (raw.control_plane !== undefined && typeof raw.control_plane !== "boolean") errors.push(`${name}: control_plane must be true or false`);
  if (raw.hostname !== undefined && raw.hostname !== null && typeof raw.hostname !== "string") errors.push(`${name}: hostname must be a string`);
  const labels = stringMap(raw.labels, `${name}: labels`, errors);
  const annotations = stringMap(raw.annotations, `${name}: annotations`, errors);
  const taints = checkTaints(raw.taints, name, errors);
  if (errors.length > before || labels === null || annotations === null || taints === null) return null;
  const hostname = typeof raw.hostname === "string" && raw.hostname !== "" ? { hostname: raw.hostname } : {};
  return { address, ...hostname, user: raw.user as string, control_plane: raw.control_plane === true, labels, annotations, taints };
}

function stringMap(value: unknown, where: string, errors: string[]): Record<string, string> | null {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) return (errors.push(`${where}: must be a mapping of strings`), null);
  const bad = Object.entries(value).filter(([, v]) => typeof v !== "string");
  for (const [k, v] of bad) errors.push(`${where}: ${k} must be a string, got ${JSON.stringify(v)}`);
  return bad.length > 0 ? null : { ...(value as Record<string, string>) };
}

function checkTaints(value: unknown, name: string, errors: string[]): Taint[] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) return (errors.push(`${name}: taints must be a list`), null);
  const taints: Taint[] = [];
  value.forEach((t, j) => {
    const where = `${name}: taints[${j}]`;
    if (!isObject(t) || typeof t.key !== "string" || t.key === "") return void errors.push(`${where}: needs a non-empty key`);
    const unknown = Object.keys(t).filter((k) => !TAINT_KEYS.has(k));
    if (unknown.length > 0) return void errors.push(`${where}: unknown key ${JSON.stringify(unknown[0])}`);
    if (t.value !== undefined && t.value !== null && typeof t.value !== "string") return void errors.push(`${where}: value must be a string`);
    if (!TAINT_EFFECTS.includes(t.effect as TaintEffect)) {
      return void errors.push(`${where}: effect must be one of ${TAINT_EFFECTS.join(", ")}, got ${JSON.stringify(t.effect ?? null)}`);
    }
    const effect = t.effect as TaintEffect;
    taints.push(typeof t.value === "string" && t.value !== "" ? { key: t.key, value: t.value, effect } : { key: t.key, effect });
  });
  return taints.length === value.length ? taints : null;
}
