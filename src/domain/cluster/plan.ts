import { parseAddress } from "../shared/address.js";
import { hasIntolerableTaint, machineToNode } from "./node.js";
import { bySerial, countByRack, pickHighest } from "./score.js";
import { WorkerSelector } from "./selector.js";
import { parseWeight } from "./template.js";
import {
  ROLE_LABEL,
  type ClusterConstraints,
  type ClusterMachine,
  type ClusterNode,
  type ClusterTemplate,
  type ClusterWide,
  type NodeTaints,
  type NodeTemplate,
  type RebootingNodes,
} from "./types.js";

/** A non-control-plane node template with its role ("" = any) and weight. */
export interface WorkerTemplate {
  readonly tmpl: NodeTemplate;
  readonly role: string;
  readonly weight: number;
}

/** The working state of one generation: who is a control plane, who is a worker, and the changes so far. */
export interface Plan {
  readonly template: ClusterTemplate;
  readonly cpTemplate: NodeTemplate;
  readonly cpRole: string;
  readonly workerTemplates: readonly WorkerTemplate[];
  readonly constraints: ClusterConstraints;
  readonly nodeTaints: NodeTaints;
  readonly rebootingNodes: RebootingNodes;
  readonly now: number;
  /** Machines whose first IPv4 is an IP address (in canonical form), by serial; the first by serial wins one. */
  readonly machines: readonly ClusterMachine[];
  readonly byAddress: ReadonlyMap<string, ClusterMachine>;
  readonly cps: ClusterMachine[];
  readonly workers: ClusterMachine[];
  /** Serials that are or were nodes this round: never picked again this round. */
  readonly used: Set<string>;
  readonly workerCount: number[];
  readonly workerRacks: Map<number, number>[];
  readonly changes: string[];
  selectors: Array<WorkerSelector | null> | null;
}

/** What a cluster is generated or updated from: the template, sabakan's machines, the constraints and the Nodes. */
export interface ClusterInputs {
  readonly template: ClusterTemplate;
  readonly machines: readonly ClusterMachine[];
  readonly constraints: ClusterConstraints;
  /** The Kubernetes Nodes' taints by node name and internal IP. */
  readonly nodeTaints: NodeTaints;
  readonly now: number;
  /** The Nodes CKE is rebooting; none when absent. */
  readonly rebootingNodes?: RebootingNodes;
}

/** Starts an empty plan, or says why the template or constraints cannot be used. */
export function newPlan({ template, machines, constraints, nodeTaints, now, rebootingNodes = new Set() }: ClusterInputs): Plan | string {
  const { controlPlaneCount: cp, minimumWorkers: min, maximumWorkers: max, waitSecondsToReplaceControlPlane: grace } = constraints;
  if (!Number.isSafeInteger(cp) || cp < 1) return `control-plane-count must be an integer >= 1, got ${cp}`;
  if (!Number.isSafeInteger(min) || min < 0) return `minimum-workers must be an integer >= 0, got ${min}`;
  if (!Number.isSafeInteger(grace) || grace < 0) return `wait-seconds-to-replace-control-plane must be an integer >= 0, got ${grace}`;
  if (!Number.isSafeInteger(max) || max < 0 || (max !== 0 && max < min))
    return `maximum-workers must be 0 (unlimited) or >= minimum-workers (${min}), got ${max}`;
  const cpTemplates = template.nodes.filter((n) => n.control_plane);
  const workerTemplates = template.nodes
    .filter((n) => !n.control_plane)
    .map((tmpl) => ({ tmpl, role: tmpl.labels[ROLE_LABEL] ?? "", weight: parseWeight(tmpl.labels) ?? 1 }));
  const cpTemplate = cpTemplates[0];
  if (cpTemplates.length !== 1 || cpTemplate === undefined || workerTemplates.length === 0)
    return "invalid template: it needs exactly one control plane template and at least one other";
  const byAddress = new Map<string, ClusterMachine>();
  for (const m of [...machines].sort(bySerial)) {
    // A first IPv4 that is not an IP address would reach CKE (and its ssh) as a host: such a machine counts as one
    // without an address. The others are planned with their address in canonical form.
    const first = m.ipv4[0];
    const parsed = first === undefined ? null : parseAddress(first);
    if (!parsed?.ok || byAddress.has(parsed.address)) continue;
    byAddress.set(parsed.address, parsed.address === first ? m : { ...m, ipv4: [parsed.address, ...m.ipv4.slice(1)] });
  }
  return {
    template,
    cpTemplate,
    cpRole: cpTemplate.labels[ROLE_LABEL] ?? "",
    workerTemplates,
    constraints,
    nodeTaints,
    rebootingNodes,
    now,
    machines: [...byAddress.values()],
    byAddress,
    cps: [],
    workers: [],
    used: new Set(),
    workerCount: workerTemplates.map(() => 0),
    workerRacks: workerTemplates.map(() => new Map()),
    changes: [],
    selectors: null,
  };
}

export const addressOf = (m: ClusterMachine): string => m.ipv4[0] as string;
const bump = (racks: Map<number, number>, rack: number, by: number) => racks.set(rack, (racks.get(rack) ?? 0) + by);

/**
 * CKE's rule for which worker template takes a machine of `role`, given the worker templates' roles in order: the
 * only one takes any role; with two or more, the one of that role. -1 when none does.
 */
export function workerTemplateIndex(roles: readonly string[], role: string): number {
  return roles.length === 1 ? 0 : roles.indexOf(role);
}

/** The worker template a machine belongs to (see {@link workerTemplateIndex}); -1 if none. */
export function workerTemplateOf(plan: Plan, m: ClusterMachine): number {
  return workerTemplateIndex(
    plan.workerTemplates.map((t) => t.role),
    m.role,
  );
}

export function addControlPlane(plan: Plan, m: ClusterMachine): void {
  plan.cps.push(m);
  plan.used.add(m.serial);
}

export function removeControlPlane(plan: Plan, m: ClusterMachine): void {
  plan.cps.splice(plan.cps.indexOf(m), 1);
}

/** Adds a worker; the caller has checked that it has a template. */
export function addWorker(plan: Plan, m: ClusterMachine): void {
  const t = workerTemplateOf(plan, m);
  plan.workers.push(m);
  plan.used.add(m.serial);
  plan.workerCount[t] = (plan.workerCount[t] ?? 0) + 1;
  bump(plan.workerRacks[t] as Map<number, number>, m.rack, 1);
}

export function removeWorker(plan: Plan, m: ClusterMachine): void {
  const t = workerTemplateOf(plan, m);
  plan.workers.splice(plan.workers.indexOf(m), 1);
  plan.workerCount[t] = (plan.workerCount[t] ?? 0) - 1;
  bump(plan.workerRacks[t] as Map<number, number>, m.rack, -1);
  plan.selectors = null; // a rack count went down: scores may improve
}

/** Healthy machines of the control plane's role without intolerable Kubernetes taints, from `pool`. */
export function controlPlaneCandidates(plan: Plan, pool: readonly ClusterMachine[]): ClusterMachine[] {
  const tolerations = plan.template.control_plane_tolerations;
  return pool.filter(
    (m) => m.state === "HEALTHY" && (plan.cpRole === "" || m.role === plan.cpRole) && !hasIntolerableTaint(plan.nodeTaints.get(addressOf(m)), tolerations),
  );
}

/** Node selection for a control plane from the unused machines (or from `pool`), by score, ties by serial. */
export function selectControlPlane(plan: Plan, pool?: readonly ClusterMachine[]): ClusterMachine | undefined {
  const candidates = controlPlaneCandidates(plan, pool ?? plan.machines.filter((m) => !plan.used.has(m.serial)));
  return pickHighest(candidates, countByRack(plan.cps), plan.now);
}

/** Node selection for a worker: the template furthest below its weight that has a candidate, then its best machine. */
export function selectWorker(plan: Plan): { m: ClusterMachine; t: number } | undefined {
  plan.selectors ??= plan.workerTemplates.map(() => null);
  let best: { m: ClusterMachine; t: number; ratio: number } | undefined;
  plan.workerTemplates.forEach((tmpl, t) => {
    const ratio = (plan.workerCount[t] ?? 0) / tmpl.weight;
    if (best !== undefined && ratio >= best.ratio) return;
    const selectors = plan.selectors as Array<WorkerSelector | null>;
    const selector = (selectors[t] ??= new WorkerSelector(
      plan.machines.filter((m) => m.state === "HEALTHY" && !plan.used.has(m.serial) && (tmpl.role === "" || m.role === tmpl.role)),
      (m) => plan.used.has(m.serial),
      (rack) => plan.workerRacks[t]?.get(rack) ?? 0,
      plan.now,
    ));
    const m = selector.peek();
    if (m) best = { m, t, ratio };
  });
  return best;
}

/** Renders the plan as cluster nodes: control planes first, then workers, each in plan order. */
export function renderNodes(plan: Plan): ClusterNode[] {
  return [
    ...plan.cps.map((m) => machineToNode(m, plan.cpTemplate, true)),
    ...plan.workers.map((m) => machineToNode(m, (plan.workerTemplates[workerTemplateOf(plan, m)] as WorkerTemplate).tmpl, false)),
  ];
}

/** The cluster-wide keys of a template or cluster. */
export function clusterWide(c: ClusterWide): ClusterWide {
  return { name: c.name, service_subnet: c.service_subnet, control_plane_tolerations: c.control_plane_tolerations, extra: c.extra };
}
