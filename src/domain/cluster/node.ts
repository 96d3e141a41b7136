import { MASTER_TAINT, STATE_TAINT, type ClusterMachine, type ClusterNode, type NodeTemplate, type Taint } from "./types.js";

const pad = (n: number) => String(n).padStart(2, "0");
/** `yyyy-MM` of an epoch-milliseconds date, in UTC. */
export const monthOf = (ms: number): string => {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}`;
};
/** RFC 3339 in UTC without fractional seconds, as Go's time.RFC3339 writes it. */
export const rfc3339 = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

/** The `cke.cybozu.com/state` taint a machine state calls for: retiring/retired NoExecute, else none. */
export function stateTaint(m: Pick<ClusterMachine, "state">): Taint | null {
  if (m.state === "RETIRING") return { key: STATE_TAINT, value: "retiring", effect: "NoExecute" };
  if (m.state === "RETIRED") return { key: STATE_TAINT, value: "retired", effect: "NoExecute" };
  return null;
}

/**
 * Turns a machine and its node template into a cluster node: address = first IPv4; labels = sabakan labels
 * (prefixed `sabakan.cke.cybozu.com/`), then the template's, then rack, index-in-rack, role, register and retire
 * month, `node-role.kubernetes.io/<role>`, the two zone labels, and for control planes the master and
 * control-plane role labels; annotations = the template's, then serial and register/retire dates; taints = the
 * template's plus the state taint.
 */
export function machineToNode(m: ClusterMachine, tmpl: NodeTemplate, controlPlane: boolean): ClusterNode {
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(m.labels)) labels[`sabakan.cke.cybozu.com/${k}`] = v;
  Object.assign(labels, tmpl.labels);
  labels["cke.cybozu.com/rack"] = String(m.rack);
  labels["cke.cybozu.com/index-in-rack"] = String(m.indexInRack);
  labels["cke.cybozu.com/role"] = m.role;
  labels["cke.cybozu.com/register-month"] = monthOf(m.registerDate);
  labels["cke.cybozu.com/retire-month"] = monthOf(m.retireDate);
  labels[`node-role.kubernetes.io/${m.role}`] = "true";
  labels["topology.kubernetes.io/zone"] = `rack${m.rack}`;
  labels["failure-domain.beta.kubernetes.io/zone"] = `rack${m.rack}`;
  if (controlPlane) {
    labels["node-role.kubernetes.io/master"] = "true";
    labels["node-role.kubernetes.io/control-plane"] = "true";
  }
  const annotations: Record<string, string> = { ...tmpl.annotations };
  annotations["cke.cybozu.com/serial"] = m.serial;
  annotations["cke.cybozu.com/register-date"] = rfc3339(m.registerDate);
  annotations["cke.cybozu.com/retire-date"] = rfc3339(m.retireDate);
  const taint = stateTaint(m);
  const taints = taint ? [...tmpl.taints, taint] : [...tmpl.taints];
  return { address: m.ipv4[0] as string, user: tmpl.user, control_plane: controlPlane, labels, annotations, taints };
}

/**
 * Tells whether a Kubernetes Node's taints include one a control plane must not carry: anything but
 * `node.kubernetes.io/*`, `cke.cybozu.com/state`, `cke.cybozu.com/master` and the template's tolerations.
 */
export function hasIntolerableTaint(taints: readonly Taint[] | undefined, tolerations: readonly string[]): boolean {
  return (taints ?? []).some(
    (t) => !t.key.startsWith("node.kubernetes.io/") && t.key !== STATE_TAINT && t.key !== MASTER_TAINT && !tolerations.includes(t.key),
  );
}

const changedKeys = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): string[] =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]).sort();
const taintText = (t: Taint) => `${t.key}${t.value === undefined ? "" : `=${t.value}`}:${t.effect}`;

/**
 * Sentences for what differs between a node as it is and as it is rendered now (same role): the state taint first
 * (with the machine state as reason), then other taints, labels, annotations and user. Empty if nothing differs.
 */
export function describeNodeChanges(before: ClusterNode, after: ClusterNode, state: string): string[] {
  const out: string[] = [];
  const oldState = before.taints.find((t) => t.key === STATE_TAINT);
  const newState = after.taints.find((t) => t.key === STATE_TAINT);
  if (newState && (!oldState || taintText(oldState) !== taintText(newState))) {
    out.push(`taint node ${after.address} with ${taintText(newState)}: machine is ${state}`);
  } else if (oldState && !newState) {
    out.push(`remove taint ${STATE_TAINT} from node ${after.address}: machine is ${state}`);
  }
  const others = (n: ClusterNode) => JSON.stringify(n.taints.filter((t) => t.key !== STATE_TAINT).map(taintText));
  if (others(before) !== others(after)) out.push(`update taints of node ${after.address} from the template: ${others(after)}`);
  const labels = changedKeys(before.labels, after.labels);
  if (labels.length > 0) out.push(`update labels of node ${after.address}: ${labels.join(", ")}`);
  const annotations = changedKeys(before.annotations, after.annotations);
  if (annotations.length > 0) out.push(`update annotations of node ${after.address}: ${annotations.join(", ")}`);
  if (before.user !== after.user) out.push(`update user of node ${after.address}: ${before.user} -> ${after.user}`);
  return out;
}
