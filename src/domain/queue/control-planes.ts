import { canonicalAddresses } from "../shared/address.js";
import { isCordonedForReboot } from "../shared/node-reboot.js";
import type { RepairEntry } from "./repair-entry.js";

/** The label CKE puts on every control plane's Node (beside `node-role.kubernetes.io/master`). */
export const CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane";

/** What the control-plane rules need of a Kubernetes Node (a structural subset of the adapters' node). */
export interface NodeFacts {
  readonly name: string;
  readonly internalIPs: readonly string[];
  readonly unschedulable: boolean;
  readonly annotations: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  readonly conditions: ReadonlyArray<{ readonly type: string; readonly status: string }>;
}

/** One control plane as the repair decision sees it. */
export interface ControlPlane {
  /** The Node's name, or the address the generated configuration lists when there is no Node. */
  readonly name: string;
  /** Every address an entry may name it by: the Node's InternalIPs and name, the generated configuration's address. */
  readonly addresses: readonly string[];
  /** Its Node's Ready condition is "True"; always true without Kubernetes (nothing is known). */
  readonly ready: boolean;
  /** CKE's reboot queue is rebooting it; always false without Kubernetes. */
  readonly rebooting: boolean;
}

/**
 * The control planes of the cluster: Nodes labelled {@link CONTROL_PLANE_LABEL}, and the addresses the generated
 * cluster configuration lists as control planes. With Kubernetes (`kubernetes`), a listed control plane without a
 * Node is not Ready, and a Node is being rebooted when it carries `cke.cybozu.com/reboot: "true"` and is cordoned,
 * but not by kintsugi (no `cordonedByAnnotation`). Without Kubernetes nothing is known of readiness or reboots:
 * every control plane counts as Ready and none as rebooting, so only the ordering and one-at-a-time rules apply.
 */
export function controlPlanesOf(
  nodes: readonly NodeFacts[],
  generatedAddresses: readonly string[],
  kubernetes: boolean,
  cordonedByAnnotation: string,
): ControlPlane[] {
  const planes: ControlPlane[] = [];
  const covered = new Set<string>();
  const generated = new Set(generatedAddresses);
  for (const node of nodes) {
    const addresses = [...new Set([...canonicalAddresses(node.internalIPs), node.name])];
    if (!Object.hasOwn(node.labels, CONTROL_PLANE_LABEL) && !addresses.some((a) => generated.has(a))) continue;
    for (const a of addresses) covered.add(a);
    planes.push({
      name: node.name,
      addresses,
      ready: !kubernetes || node.conditions.some((c) => c.type === "Ready" && c.status === "True"),
      rebooting: kubernetes && isCordonedForReboot(node, cordonedByAnnotation),
    });
  }
  for (const address of generated) {
    if (!covered.has(address)) planes.push({ name: address, addresses: [address], ready: !kubernetes, rebooting: false });
  }
  return planes;
}

/** The control planes by every address they are known by, built once per pass. */
export type ControlPlaneIndex = ReadonlyMap<string, ControlPlane>;

export function indexControlPlanes(planes: readonly ControlPlane[]): ControlPlaneIndex {
  const byAddress = new Map<string, ControlPlane>();
  for (const plane of planes) for (const a of plane.addresses) byAddress.set(a, plane);
  return byAddress;
}

/**
 * Why a control-plane entry may not move this pass: the rule, a sentence, and the other control plane being rebooted
 * or not Ready (one at a time names none: the entry in progress says which).
 */
export type ControlPlaneHold =
  | { readonly rule: "one-at-a-time"; readonly message: string }
  | { readonly rule: "rebooting" | "not-ready"; readonly message: string; readonly plane: ControlPlane };

/**
 * Why a control-plane entry may not move this pass, or null. `own` is the entry's machine; `repairing` is the
 * control-plane entry already in progress this pass (null when none). In order: one control plane at a time; no
 * repair while another control plane is being rebooted; no drain or command while another one is not Ready (the one
 * dead control plane may be repaired).
 */
export function controlPlaneHold(own: ControlPlane, planes: readonly ControlPlane[], repairing: RepairEntry | null): ControlPlaneHold | null {
  if (repairing)
    return { rule: "one-at-a-time", message: `one control plane at a time: entry ${repairing.index} is repairing control plane ${repairing.address}` };
  const rebooting = planes.find((p) => p !== own && p.rebooting);
  if (rebooting) return { rule: "rebooting", message: `control plane ${rebooting.name} is being rebooted`, plane: rebooting };
  const notReady = planes.find((p) => p !== own && !p.ready);
  if (notReady) return { rule: "not-ready", message: `control plane ${notReady.name} is not Ready`, plane: notReady };
  return null;
}
