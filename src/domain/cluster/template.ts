import { isIPv4, isIPv6 } from "node:net";
import { parse as parseYaml } from "../shared/yaml.js";
import { ROLE_LABEL, TAINT_EFFECTS, WEIGHT_LABEL, type ClusterTemplate, type NodeTemplate, type Taint, type TaintEffect } from "./types.js";

/** A validated template, or every reason it is not one (each naming the offending template or key). */
export type TemplateResult = { readonly ok: true; readonly template: ClusterTemplate } | { readonly ok: false; readonly errors: readonly string[] };

const CLUSTER_KEYS = new Set(["name", "nodes", "service_subnet", "control_plane_tolerations"]);
const NODE_KEYS = new Set(["user", "control_plane", "labels", "annotations", "taints", "hostname"]);
type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Reads a cluster template written in YAML or JSON (JSON is YAML) and validates it with {@link validateTemplate}.
 */
export function parseTemplate(text: string): TemplateResult {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (e) {
    return { ok: false, errors: [`template is neither YAML nor JSON: ${(e as Error).message.split("\n")[0]}`] };
  }
  return validateTemplate(data);
}

/** Parses `cke.cybozu.com/weight`: absent is 1.0; otherwise a decimal number, or null if it is not one. */
export function parseWeight(labels: Readonly<Record<string, string>>): number | null {
  const text = labels[WEIGHT_LABEL];
  if (text === undefined) return 1;
  if (!/^\+?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text.trim())) return null;
  const weight = Number(text);
  return Number.isFinite(weight) ? weight : null;
}

/** Tells whether `text` is an IPv4 or IPv6 network in CIDR notation (host bits allowed, as Go's ParseCIDR). */
export function isCidr(text: string): boolean {
  const [ip, prefix, ...rest] = text.split("/");
  if (ip === undefined || prefix === undefined || rest.length > 0 || !/^\d{1,3}$/.test(prefix)) return false;
  const bits = Number(prefix);
  return (isIPv4(ip) && bits <= 32) || (isIPv6(ip) && !ip.includes("%") && bits <= 128);
}

/** How an error names node template `i`: `nodes[2] (role "ss")`, `nodes[0] (control plane)`. */
export function describeNodeTemplate(i: number, node: unknown): string {
  const parts: string[] = [];
  if (isObject(node) && node.control_plane === true) parts.push("control plane");
  const role = isObject(node) && isObject(node.labels) ? node.labels[ROLE_LABEL] : undefined;
  if (typeof role === "string" && role !== "") parts.push(`role ${JSON.stringify(role)}`);
  return `nodes[${i}]${parts.length > 0 ? ` (${parts.join(", ")})` : ""}`;
}

/**
 * Validates parsed template data by the sabakan integration's rules and returns the typed template. Rules:
 * name non-empty; service_subnet a CIDR; at least two node templates; exactly one control plane template; with two
 * or more non-control-plane templates, each has a distinct non-empty `cke.cybozu.com/role`; no `address` in a node
 * template; `cke.cybozu.com/weight` (default 1.0) a positive number; plus well-formed fields (user, labels, taints).
 */
export function validateTemplate(data: unknown): TemplateResult {
  if (!isObject(data)) return { ok: false, errors: ["template must be a mapping with name, nodes and service_subnet"] };
  const errors: string[] = [];
  if (typeof data.name !== "string" || data.name.trim() === "") errors.push("name: must be a non-empty string");
  if (typeof data.service_subnet !== "string" || !isCidr(data.service_subnet)) {
    errors.push(`service_subnet: must be a CIDR such as 10.68.0.0/16, got ${JSON.stringify(data.service_subnet ?? null)}`);
  }
  const tolerations = data.control_plane_tolerations ?? [];
  if (!Array.isArray(tolerations) || !tolerations.every((t) => typeof t === "string" && t !== "")) {
    errors.push("control_plane_tolerations: must be a list of taint keys");
  }
  const rawNodes = Array.isArray(data.nodes) ? data.nodes : [];
  if (!Array.isArray(data.nodes)) errors.push("nodes: must be a list of node templates");
  else if (rawNodes.length < 2) {
    errors.push(`nodes: at least two node templates are required (one control plane, one other), got ${rawNodes.length}`);
  }
  const nodes: NodeTemplate[] = [];
  rawNodes.forEach((raw, i) => {
    const node = checkNode(raw, describeNodeTemplate(i, raw), errors);
    if (node) nodes.push(node);
  });
  const cps = rawNodes.flatMap((n, i) => (isObject(n) && n.control_plane === true ? [describeNodeTemplate(i, n)] : []));
  if (Array.isArray(data.nodes) && cps.length === 0) errors.push("nodes: exactly one node template must have control_plane: true, found none");
  if (cps.length > 1) errors.push(`${cps.join(", ")}: exactly one node template must have control_plane: true, found ${cps.length}`);
  checkRoles(rawNodes, errors);
  checkSabakanSection(data.sabakan, errors);
  if (errors.length > 0 || nodes.length !== rawNodes.length) return { ok: false, errors };
  const extra: Raw = {};
  for (const [k, v] of Object.entries(data)) if (!CLUSTER_KEYS.has(k)) extra[k] = v;
  return {
    ok: true,
    template: { name: data.name as string, service_subnet: data.service_subnet as string, control_plane_tolerations: tolerations as string[], extra, nodes },
  };
}

/** CKE's `sabakan` section of cluster.yml (its `Sabakan` struct): a mapping whose `spare_node_taint_key` is a string. */
function checkSabakanSection(section: unknown, errors: string[]): void {
  if (section === undefined || section === null) return;
  if (!isObject(section)) return void errors.push("sabakan: must be a mapping (CKE's sabakan section: spare_node_taint_key)");
  const key = section.spare_node_taint_key;
  if (key !== undefined && key !== null && typeof key !== "string") {
    errors.push(`sabakan.spare_node_taint_key: must be a string (a taint key), got ${JSON.stringify(key)}`);
  }
}

/**
 * The template's `sabakan.spare_node_taint_key`, as CKE reads it (cluster.go `Sabakan.SpareNodeTaintKey`, used by
 * sabakan/generator.go to prefer spare Nodes as control planes); null when absent or empty (Go's zero value: none).
 */
export function templateSpareNodeTaintKey(template: Pick<ClusterTemplate, "extra">): string | null {
  const section = template.extra["sabakan"];
  const key = isObject(section) ? section.spare_node_taint_key : undefined;
  return typeof key === "string" && key !== "" ? key : null;
}

function checkRoles(rawNodes: readonly unknown[], errors: string[]): void {
  const workers = rawNodes.flatMap((n, i) => (isObject(n) && n.control_plane !== true ? [{ n, i }] : []));
  if (workers.length < 2) return;
  const seen = new Map<string, string>();
  for (const { n, i } of workers) {
    const name = describeNodeTemplate(i, n);
    const role = isObject(n) && isObject(n.labels) ? n.labels[ROLE_LABEL] : undefined;
    if (typeof role !== "string" || role === "") {
      errors.push(`${name}: needs a non-empty ${ROLE_LABEL} label, as there are ${workers.length} non-control-plane templates`);
      continue;
    }
    const other = seen.get(role);
    if (other !== undefined) errors.push(`${name}: ${ROLE_LABEL} ${JSON.stringify(role)} is already used by ${other}`);
    else seen.set(role, name);
  }
}

function checkNode(raw: unknown, name: string, errors: string[]): NodeTemplate | null {
  if (!isObject(raw)) {
    errors.push(`${name}: must be a mapping`);
    return null;
  }
  const before = errors.length;
  // `ckecli sabakan get-template` writes every node's `address: ""` and `hostname: ""` (Go's zero values): CKE's
  // template check (cluster.go validateNode) refuses only a non-empty address, and its generator ignores hostname.
  if (raw.address !== undefined && raw.address !== null && raw.address !== "") {
    errors.push(`${name}: must not have an address; addresses come from sabakan`);
  }
  if (raw.hostname !== undefined && raw.hostname !== null && typeof raw.hostname !== "string") errors.push(`${name}: hostname must be a string`);
  for (const key of Object.keys(raw)) {
    if (!NODE_KEYS.has(key) && key !== "address") errors.push(`${name}: unknown key ${JSON.stringify(key)}`);
  }
  if (typeof raw.user !== "string" || raw.user === "") errors.push(`${name}: user must be a non-empty string`);
  if (raw.control_plane !== undefined && typeof raw.control_plane !== "boolean") errors.push(`${name}: control_plane must be true or false`);
  const labels = stringMap(raw.labels, `${name}: labels`, errors);
  const annotations = stringMap(raw.annotations, `${name}: annotations`, errors);
  if (labels !== null) {
    const weight = parseWeight(labels);
    if (weight === null || weight <= 0) {
      errors.push(`${name}: ${WEIGHT_LABEL} must be a positive number, got ${JSON.stringify(labels[WEIGHT_LABEL])}`);
    }
  }
  const taints = checkTaints(raw.taints, name, errors);
  if (errors.length > before || labels === null || annotations === null || taints === null) return null;
  return { user: raw.user as string, control_plane: raw.control_plane === true, labels, annotations, taints };
}

function stringMap(value: unknown, where: string, errors: string[]): Record<string, string> | null {
  if (value === undefined || value === null) return {};
  if (!isObject(value)) {
    errors.push(`${where}: must be a mapping of strings`);
    return null;
  }
  const bad = Object.entries(value).filter(([, v]) => typeof v !== "string");
  for (const [k, v] of bad) errors.push(`${where}: ${k} must be a string (quote it), got ${JSON.stringify(v)}`);
  return bad.length > 0 ? null : (value as Record<string, string>);
}

function checkTaints(value: unknown, name: string, errors: string[]): Taint[] | null {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.push(`${name}: taints must be a list`);
    return null;
  }
  const taints: Taint[] = [];
  value.forEach((t, j) => {
    const where = `${name}: taints[${j}]`;
    if (!isObject(t) || typeof t.key !== "string" || t.key === "") return void errors.push(`${where}: needs a non-empty key`);
    if (t.value !== undefined && typeof t.value !== "string") return void errors.push(`${where}: value must be a string`);
    if (!TAINT_EFFECTS.includes(t.effect as TaintEffect)) {
      return void errors.push(`${where}: effect must be one of ${TAINT_EFFECTS.join(", ")}, got ${JSON.stringify(t.effect ?? null)}`);
    }
    taints.push(t.value === undefined ? { key: t.key, effect: t.effect as TaintEffect } : { key: t.key, value: t.value, effect: t.effect as TaintEffect });
  });
  return taints.length === value.length ? taints : null;
}
