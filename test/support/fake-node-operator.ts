import { CORDONED_BY_ANNOTATION, type ClusterNode, type EvictionOutcome, type NodeEvent, type NodeOperator, type NodePod } from "../../src/adapters/ports.js";

type Method = "listNodes" | "cordon" | "uncordon" | "listPods" | "listNamespaces" | "evict" | "deletePod" | "recordEvent";

/** One call the runner made, with its arguments. */
export interface NodeCall {
  readonly method: Method;
  readonly args: readonly unknown[];
}

/** A call the test holds: `reached` resolves when the call arrives; it goes on (or fails) when released. */
export interface HeldCall {
  readonly reached: Promise<void>;
  release(): void;
  fail(err: Error): void;
}

interface Node {
  name: string;
  internalIPs: string[];
  unschedulable: boolean;
  annotations: Record<string, string>;
}

/**
 * An in-memory NodeOperator with the port's semantics (cordon marks the owner; uncordon only undoes its own
 * mark), recording every call. The next call of a method can be held until the test releases it, evictions can
 * be answered by `evictionAnswer`, and a method can be made to fail.
 */
export class FakeNodeOperator implements NodeOperator {
  readonly calls: NodeCall[] = [];
  readonly events: Array<{ node: string; event: NodeEvent }> = [];
  /** How a (non-dry-run) eviction is answered; evicted pods are removed from their node. */
  evictionAnswer: (pod: NodePod, dryRun: boolean) => EvictionOutcome = () => ({ kind: "evicted" });
  private readonly nodes = new Map<string, Node>();
  private readonly pods = new Map<string, NodePod[]>();
  private readonly holds = new Map<Method, Array<{ arrived: () => void; gate: Promise<void> }>>();
  private readonly failures = new Map<Method, Error>();

  addNode(name: string, internalIP: string): void {
    this.nodes.set(name, { name, internalIPs: [internalIP], unschedulable: false, annotations: {} });
  }

  /** Sets (or, with null, removes) an annotation of the node, as another tool would. */
  annotate(name: string, key: string, value: string | null): void {
    const node = this.nodes.get(name);
    if (!node) throw new Error(`no node ${name}`);
    if (value === null) delete node.annotations[key];
    else node.annotations[key] = value;
  }

  addPod(nodeName: string, pod: Partial<NodePod> & Pick<NodePod, "name">): void {
    const full: NodePod = { namespace: "app", controllerKind: "ReplicaSet", phase: "Running", labels: {}, ...pod };
    this.pods.set(nodeName, [...(this.pods.get(nodeName) ?? []), full]);
  }

  /** The node's cordon state: unschedulable, and who marked it. */
  node(name: string): { unschedulable: boolean; cordonedBy: string | undefined } | undefined {
    const node = this.nodes.get(name);
    return node && { unschedulable: node.unschedulable, cordonedBy: node.annotations[CORDONED_BY_ANNOTATION] };
  }

  /** Holds the next call of `method` until released. */
  holdNext(method: Method): HeldCall {
    let arrived: () => void = () => {};
    let release: () => void = () => {};
    let fail: (err: Error) => void = () => {};
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const gate = new Promise<void>((resolve, reject) => {
      release = resolve;
      fail = reject;
    });
    this.holds.set(method, [...(this.holds.get(method) ?? []), { arrived, gate }]);
    return { reached, release, fail };
  }

  /** Makes every later call of `method` reject with `err` (undefined = succeed again). */
  failWith(method: Method, err: Error | undefined): void {
    if (err) this.failures.set(method, err);
    else this.failures.delete(method);
  }

  async listNodes(): Promise<ClusterNode[]> {
    await this.enter("listNodes", []);
    return [...this.nodes.values()].map((n) => ({
      ...n,
      internalIPs: [...n.internalIPs],
      annotations: { ...n.annotations },
      labels: {},
      taints: [],
      conditions: [],
    }));
  }

  async cordon(nodeName: string, owner: string): Promise<boolean> {
    await this.enter("cordon", [nodeName, owner]);
    const node = this.nodes.get(nodeName);
    if (!node) throw new Error(`nodes "${nodeName}" not found`);
    if (node.unschedulable && node.annotations[CORDONED_BY_ANNOTATION] === undefined) return false;
    node.unschedulable = true;
    node.annotations[CORDONED_BY_ANNOTATION] = owner;
    return true;
  }

  async uncordon(nodeName: string, owner: string): Promise<boolean> {
    await this.enter("uncordon", [nodeName, owner]);
    const node = this.nodes.get(nodeName);
    if (!node || node.annotations[CORDONED_BY_ANNOTATION] !== owner) return false;
    node.unschedulable = false;
    delete node.annotations[CORDONED_BY_ANNOTATION];
    return true;
  }

  async listPods(nodeName: string): Promise<NodePod[]> {
    await this.enter("listPods", [nodeName]);
    return [...(this.pods.get(nodeName) ?? [])];
  }

  async listNamespaces(labelSelector: string | null): Promise<string[]> {
    await this.enter("listNamespaces", [labelSelector]);
    return [...new Set([...this.pods.values()].flat().map((p) => p.namespace))];
  }

  async evict(pod: NodePod, options: { readonly dryRun: boolean }): Promise<EvictionOutcome> {
    await this.enter("evict", [pod, options]);
    const outcome = this.evictionAnswer(pod, options.dryRun);
    if (outcome.kind === "evicted" && !options.dryRun) this.removePod(pod);
    return outcome;
  }

  async deletePod(pod: NodePod): Promise<boolean> {
    await this.enter("deletePod", [pod]);
    return this.removePod(pod);
  }

  async recordEvent(nodeName: string, event: NodeEvent): Promise<void> {
    await this.enter("recordEvent", [nodeName, event]);
    this.events.push({ node: nodeName, event });
  }

  watchNodes(): () => void {
    return () => {};
  }

  /** The calls of one method, by their arguments. */
  callsOf(method: Method): Array<readonly unknown[]> {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  private async enter(method: Method, args: readonly unknown[]): Promise<void> {
    this.calls.push({ method, args });
    const hold = this.holds.get(method)?.shift();
    if (hold) {
      hold.arrived();
      await hold.gate;
    }
    const failure = this.failures.get(method);
    if (failure) throw failure;
  }

  private removePod(pod: NodePod): boolean {
    for (const [node, pods] of this.pods) {
      const left = pods.filter((p) => !(p.namespace === pod.namespace && p.name === pod.name));
      if (left.length !== pods.length) {
        this.pods.set(node, left);
        return true;
      }
    }
    return false;
  }
}
