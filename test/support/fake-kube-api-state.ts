import { randomUUID } from "node:crypto";
import type { KubeObject } from "./fake-kube-api-objects.js";

/** A node to create in the fake. */
export interface FakeNodeSpec {
  readonly name: string;
  readonly internalIP: string;
  readonly unschedulable?: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly labels?: Readonly<Record<string, string>>;
  readonly taints?: ReadonlyArray<{ readonly key: string; readonly value?: string; readonly effect: string }>;
  /** `status.nodeInfo.bootID`; default a fresh random UUID, as kubelet reports one per boot. */
  readonly bootId?: string;
}

/** A pod to create in the fake; its namespace is created when missing. */
export interface FakePodSpec {
  readonly namespace: string;
  readonly name: string;
  readonly nodeName: string;
  /** Gives the pod a controlling owner reference of this kind. */
  readonly controllerKind?: string;
  /** Owner references to use instead of `controllerKind`, e.g. a non-controller owner. */
  readonly owners?: ReadonlyArray<{ readonly kind: string; readonly controller: boolean }>;
  /** Default `Running`. */
  readonly phase?: string;
  readonly labels?: Readonly<Record<string, string>>;
}

/** A pod as a test inspects it. `terminating` = evicted or deleted in `manual` termination mode, not yet gone. */
export interface FakePod {
  readonly namespace: string;
  readonly name: string;
  readonly nodeName: string;
  readonly phase: string;
  readonly terminating: boolean;
  readonly object: KubeObject;
}

/** One request to the eviction subresource, and what the fake answered. */
export interface RecordedEviction {
  readonly namespace: string;
  readonly name: string;
  readonly dryRun: boolean;
  readonly outcome: "evicted" | "refused" | "not-found";
}

/** `namespace/name`, the key of namespaced objects in the fake's maps. */
export const podKey = (namespace: string, name: string): string => `${namespace}/${name}`;
const now = (): string => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");

/**
 * What the fake Kubernetes API holds, in memory, and how a test scripts and inspects it. The HTTP routes that read
 * and change it are in {@link FakeKubeRoutes}.
 */
export class FakeKubeState {
  /** `immediate`: an evicted or deleted pod is gone at once. `manual`: it stays terminating until {@link finishTermination}. */
  terminationMode: "immediate" | "manual" = "immediate";
  /** Every eviction request in arrival order, dry runs included. */
  readonly evictions: RecordedEviction[] = [];
  protected readonly nodes = new Map<string, KubeObject>();
  protected readonly namespaces = new Map<string, KubeObject>();
  protected readonly podObjects = new Map<string, KubeObject>();
  protected readonly eventObjects: KubeObject[] = [];
  protected readonly refusals = new Map<string, { message: string; dryRunToo: boolean }>();
  protected resourceVersion = 1;
  /** How many of the next list requests with a continue token are answered 410 Gone (an expired token). */
  expiredContinueTokens = 0;

  constructor() {
    for (const name of ["default", "kube-system"]) this.addNamespace(name);
  }

  /** Called after a node is added, changed or removed (the server streams it to node watchers). */
  protected nodeChanged(_type: "ADDED" | "MODIFIED" | "DELETED", _node: KubeObject): void {}

  addNode(spec: FakeNodeSpec): void {
    const { name } = spec;
    this.nodes.set(name, {
      apiVersion: "v1",
      kind: "Node",
      metadata: { ...this.meta(name), labels: { "kubernetes.io/hostname": name, ...spec.labels }, annotations: { ...spec.annotations } },
      spec: { ...(spec.unschedulable && { unschedulable: true }), ...(spec.taints && { taints: spec.taints.map((t) => ({ ...t })) }) },
      status: {
        addresses: [
          { type: "InternalIP", address: spec.internalIP },
          { type: "Hostname", address: name },
        ],
        conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", lastTransitionTime: new Date(Date.now() - 86_400_000).toISOString() }],
        nodeInfo: { kubeletVersion: "v1.32.0", bootID: spec.bootId ?? randomUUID() },
      },
    });
    this.nodeChanged("ADDED", this.nodes.get(name) as KubeObject);
  }

  /** Sets a node condition (as kubelet or the node controller would), with when it took this status. */
  setNodeCondition(name: string, type: string, status: "True" | "False" | "Unknown", since: Date = new Date()): void {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    const others = (node["status"].conditions as Array<{ type: string }>).filter((c) => c.type !== type);
    node["status"].conditions = [...others, { type, status, reason: "SetByTest", lastTransitionTime: since.toISOString() }];
    this.nodeChanged("MODIFIED", node);
  }

  /** Sets the node's `status.nodeInfo.bootID` (as kubelet reports after the machine booted again). */
  setNodeBootId(name: string, bootId: string): void {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    node["status"].nodeInfo = { ...node["status"].nodeInfo, bootID: bootId };
    this.nodeChanged("MODIFIED", node);
  }

  /** The node's `status.nodeInfo.bootID` as served now. */
  nodeBootId(name: string): string {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    return node["status"].nodeInfo.bootID as string;
  }

  removeNode(name: string): void {
    const node = this.nodes.get(name);
    this.nodes.delete(name);
    if (node) this.nodeChanged("DELETED", node);
  }

  /** Like the API server, labels every namespace with `kubernetes.io/metadata.name`. */
  addNamespace(name: string, labels: Readonly<Record<string, string>> = {}): void {
    const metadata = { ...this.meta(name), labels: { ...labels, "kubernetes.io/metadata.name": name } };
    this.namespaces.set(name, { apiVersion: "v1", kind: "Namespace", metadata, status: { phase: "Active" } });
  }

  addPod(spec: FakePodSpec): void {
    if (!this.namespaces.has(spec.namespace)) this.addNamespace(spec.namespace);
    const owners = spec.owners ?? (spec.controllerKind ? [{ kind: spec.controllerKind, controller: true }] : []);
    const apiVersion = (kind: string): string => (kind === "Job" ? "batch/v1" : ["DaemonSet", "ReplicaSet", "StatefulSet"].includes(kind) ? "apps/v1" : "v1");
    const metadata: KubeObject = { ...this.meta(spec.name), namespace: spec.namespace, labels: { ...spec.labels } };
    if (owners.length > 0) {
      metadata.ownerReferences = owners.map((o) => ({
        apiVersion: apiVersion(o.kind),
        kind: o.kind,
        name: `${spec.name}-owner`,
        uid: randomUUID(),
        controller: o.controller,
        blockOwnerDeletion: true,
      }));
    }
    this.podObjects.set(podKey(spec.namespace, spec.name), {
      apiVersion: "v1",
      kind: "Pod",
      metadata,
      spec: { nodeName: spec.nodeName, containers: [{ name: "main", image: "busybox" }], terminationGracePeriodSeconds: 30 },
      status: { phase: spec.phase ?? "Running" },
    });
  }

  /** E.g. a Job pod completing: `Succeeded`. */
  setPodPhase(namespace: string, name: string, phase: string): void {
    const pod = this.podObjects.get(podKey(namespace, name));
    if (!pod) throw new Error(`fake: no pod ${podKey(namespace, name)}`);
    pod.status.phase = phase;
    pod.metadata.resourceVersion = this.nextVersion();
  }

  removePod(namespace: string, name: string): void {
    this.podObjects.delete(podKey(namespace, name));
  }

  /**
   * Makes evictions of the pod (dry-run too) answer 429 as a PodDisruptionBudget would, until {@link allowEviction}.
   * As in the API server, a pod that is Pending, Succeeded, Failed or terminating is evicted regardless.
   * `dryRunToo: false` lets dry runs pass, as when the budget changes between the dry run and the eviction.
   */
  refuseEviction(
    namespace: string,
    name: string,
    message = "Cannot evict pod as it would violate the pod's disruption budget.",
    options: { dryRunToo?: boolean } = {},
  ): void {
    this.refusals.set(podKey(namespace, name), { message, dryRunToo: options.dryRunToo ?? true });
  }

  allowEviction(namespace: string, name: string): void {
    this.refusals.delete(podKey(namespace, name));
  }

  /** Ends the termination of a pod that was evicted or deleted in `manual` mode: it is gone. */
  finishTermination(namespace: string, name: string): void {
    const key = podKey(namespace, name);
    if (!this.podObjects.get(key)?.metadata.deletionTimestamp) throw new Error(`fake: pod ${key} is not terminating`);
    this.podObjects.delete(key);
  }

  /** A copy of the node object as stored, or undefined. */
  node(name: string): KubeObject | undefined {
    const node = this.nodes.get(name);
    return node && structuredClone(node);
  }

  pods(): FakePod[] {
    return [...this.podObjects.values()].map((o) => ({
      namespace: o.metadata.namespace,
      name: o.metadata.name,
      nodeName: o.spec.nodeName,
      phase: o.status.phase,
      terminating: Boolean(o.metadata.deletionTimestamp),
      object: structuredClone(o),
    }));
  }

  /** Copies of the stored events, in creation order. */
  events(): KubeObject[] {
    return structuredClone(this.eventObjects);
  }

  protected meta(name: string): KubeObject {
    return { name, uid: randomUUID(), resourceVersion: this.nextVersion(), creationTimestamp: now() };
  }

  protected nextVersion(): string {
    return String(++this.resourceVersion);
  }

  /** Evicted or deleted: gone, or in `manual` mode marked terminating. */
  protected terminate(key: string): void {
    const pod = this.podObjects.get(key)!;
    if (this.terminationMode === "immediate") {
      this.podObjects.delete(key);
    } else if (!pod.metadata.deletionTimestamp) {
      pod.metadata.deletionTimestamp = now();
      pod.metadata.deletionGracePeriodSeconds = 30;
      pod.metadata.resourceVersion = this.nextVersion();
    }
  }

  protected timestamp(): string {
    return now();
  }
}
