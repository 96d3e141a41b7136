import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import * as k8s from "./kube-client.js";
import {
  CORDONED_BY_ANNOTATION,
  type ClusterNode,
  type EvictionOutcome,
  type KubeCallOptions,
  type NodeEvent,
  type NodeOperator,
  type NodePod,
} from "./ports.js";
import { boundedRequest, describeFailure, failure, statusOf, statusOfBody } from "./kube-call.js";
import { BoundedKubeHttp } from "./kube-http.js";
import { watchNodes } from "./kube-node-watch.js";
import { loadKubeconfigFile } from "./kubeconfig-file.js";
import type { TaintEffect } from "../domain/cluster/types.js";
import { DEFAULT_KUBERNETES_LIMITS, DEFAULT_KUBERNETES_TIMEOUT_SECONDS, type KubernetesLimits } from "../config/kintsugi-config.js";

// The client's default patch content type is JSON patch; our bodies are merge patches.
const MERGE_PATCH = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
// A cordon or uncordon re-reads the node and decides again when someone changed it between the read and the patch.
const CONFLICT_ATTEMPTS = 3;
const COMPONENT = "kintsugi";

/** How much a Kubernetes API server may make kintsugi hold and wait for, and where watch failures are told. */
export interface KubeOperatorOptions extends Partial<KubernetesLimits> {
  /** One line per node watch failure; none when absent. */
  readonly log?: (message: string) => void;
  /** The most nodes one list reads; MAX_LISTED_NODES when absent. */
  readonly maxNodes?: number;
}

/**
 * The list an answer holds, or a failure naming the call: a server may answer a list request with anything (a
 * string for a text/plain body, an object without items), and that must fail the call, not what reads the list.
 */
function listOf<T extends { items?: unknown }>(answer: T, operation: string, object: string): T & { items: NonNullable<T["items"]> } {
  if (typeof answer !== "object" || answer === null || !Array.isArray(answer.items)) {
    throw new Error(`${operation}: ${object}: the answer is not a list`);
  }
  return answer as T & { items: NonNullable<T["items"]> };
}

/** Nodes asked for per list request (`limit`), as client-go's pager's default page size. */
export const NODE_LIST_PAGE_SIZE = 500;
/** The most nodes one list reads: a bound on memory whatever the API server answers. */
export const MAX_LISTED_NODES = 20_000;

/** {@link NodeOperator} over the Kubernetes API with @kubernetes/client-node. */
export class KubeNodeOperator implements NodeOperator {
  private readonly core: k8s.CoreV1Api;
  private readonly limits: KubernetesLimits;
  private readonly http: BoundedKubeHttp;
  private readonly log: (message: string) => void;
  private readonly maxNodes: number;

  /**
   * Loads a kubeconfig file (see {@link loadKubeconfigFile}: failures never quote the file), or with `null` the
   * in-cluster service account.
   */
  static fromKubeconfig(path: string | null, timeoutSeconds = DEFAULT_KUBERNETES_TIMEOUT_SECONDS, options: KubeOperatorOptions = {}): KubeNodeOperator {
    if (path !== null) return new KubeNodeOperator(loadKubeconfigFile(path), timeoutSeconds, options);
    // loadFromCluster does not check this itself and would build the URL `https://undefined:undefined`.
    if (!process.env.KUBERNETES_SERVICE_HOST) {
      throw new Error("no kubeconfig given and not running in a Kubernetes pod (KUBERNETES_SERVICE_HOST is not set)");
    }
    const config = new k8s.KubeConfig();
    config.loadFromCluster();
    return new KubeNodeOperator(config, timeoutSeconds, options);
  }

  /**
   * Uses the current context of `config`; every request gives up after `timeoutSeconds`, and no answer or watch line
   * larger than `options.maxResponseBytes` is held.
   */
  constructor(
    private readonly config: k8s.KubeConfig,
    private readonly timeoutSeconds = DEFAULT_KUBERNETES_TIMEOUT_SECONDS,
    options: KubeOperatorOptions = {},
  ) {
    this.core = config.makeApiClient(k8s.CoreV1Api);
    this.limits = { ...DEFAULT_KUBERNETES_LIMITS, ...options };
    this.http = new BoundedKubeHttp(this.limits.maxResponseBytes);
    this.log = options.log ?? (() => undefined);
    this.maxNodes = options.maxNodes ?? MAX_LISTED_NODES;
  }

  watchNodes(changed: () => void): () => void {
    const limits = { maxLineBytes: this.limits.maxResponseBytes, watchSeconds: this.limits.watchSeconds, graceSeconds: this.timeoutSeconds, log: this.log };
    return watchNodes(this.config, limits, changed);
  }

  async listNodes(options?: KubeCallOptions): Promise<ClusterNode[]> {
    return (await this.listNodePages(options)).map((node) => ({
      name: node.metadata?.name ?? "",
      internalIPs: (node.status?.addresses ?? []).filter((a) => a.type === "InternalIP").map((a) => a.address),
      unschedulable: node.spec?.unschedulable === true,
      annotations: { ...node.metadata?.annotations },
      labels: { ...node.metadata?.labels },
      taints: (node.spec?.taints ?? []).map((t) => ({ key: t.key, ...(t.value !== undefined && { value: t.value }), effect: t.effect as TaintEffect })),
      conditions: (node.status?.conditions ?? []).map((c) => ({
        type: c.type,
        status: c.status,
        lastTransitionTime: c.lastTransitionTime ? new Date(c.lastTransitionTime).getTime() : 0,
      })),
      ...(node.status?.nodeInfo?.bootID && { bootId: node.status.nodeInfo.bootID }),
    }));
  }

  /**
   * Reads the node list in pages of NODE_LIST_PAGE_SIZE with `limit` and `continue`, as client-go's pager does
   * (k8s.io/client-go/tools/pager/pager.go), so each answer stays under max_response_bytes however large the cluster.
   * An expired continue token (410 Gone) restarts the list once from the start; more than MAX_LISTED_NODES fails.
   */
  private async listNodePages(options?: KubeCallOptions): Promise<k8s.V1Node[]> {
    for (let attempt = 1; ; attempt++) {
      const nodes: k8s.V1Node[] = [];
      let token: string | undefined;
      try {
        do {
          const page = listOf(
            await this.call("list nodes", "nodes", options, (o) => this.core.listNode({ limit: NODE_LIST_PAGE_SIZE, ...(token && { _continue: token }) }, o)),
            "list nodes",
            "nodes",
          );
          nodes.push(...page.items);
          if (nodes.length > this.maxNodes) throw new Error(`list nodes: nodes: more than ${this.maxNodes} nodes (the most kintsugi reads in one list)`);
          token = page.metadata?._continue || undefined;
        } while (token);
        return nodes;
      } catch (error) {
        const gone = token !== undefined && statusOf(error instanceof Error && error.cause !== undefined ? error.cause : error) === 410;
        if (gone && attempt === 1) continue;
        if (gone)
          throw new Error(`list nodes: nodes: the continue token expired twice (HTTP 410 Gone); the node list changes faster than it can be read`, {
            cause: error,
          });
        throw error;
      }
    }
  }

  async cordon(nodeName: string, owner: string, options?: KubeCallOptions): Promise<boolean> {
    return this.patchNodeGuarded(nodeName, "cordon", false, options, (node) => {
      const annotations = node.metadata?.annotations ?? {};
      // Somebody else's cordon: leave it, and never claim it.
      if (node.spec?.unschedulable === true && !Object.hasOwn(annotations, CORDONED_BY_ANNOTATION)) return null;
      return { metadata: { annotations: { [CORDONED_BY_ANNOTATION]: owner } }, spec: { unschedulable: true } };
    });
  }

  async uncordon(nodeName: string, owner: string, options?: KubeCallOptions): Promise<boolean> {
    return this.patchNodeGuarded(nodeName, "uncordon", true, options, (node) => {
      if (node.metadata?.annotations?.[CORDONED_BY_ANNOTATION] !== owner) return null;
      return { metadata: { annotations: { [CORDONED_BY_ANNOTATION]: null } }, spec: { unschedulable: false } };
    });
  }

  /**
   * Reads a node, lets `decide` turn it into a merge patch (null: nothing to do, false is returned) and applies it
   * guarded by the node's resourceVersion; on a conflict it reads and decides again, up to CONFLICT_ATTEMPTS times.
   * With `goneIsDone` a node that does not exist (or vanishes before the patch) is nothing to do.
   */
  private async patchNodeGuarded(
    nodeName: string,
    verb: string,
    goneIsDone: boolean,
    options: KubeCallOptions | undefined,
    decide: (node: k8s.V1Node) => { metadata: Record<string, unknown>; spec: Record<string, unknown> } | null,
  ): Promise<boolean> {
    const object = `node/${nodeName}`;
    for (let attempt = 1; ; attempt++) {
      let node: k8s.V1Node;
      try {
        node = await this.send(options, (o) => this.core.readNode({ name: nodeName }, o));
      } catch (error) {
        if (goneIsDone && statusOf(error) === 404) return false;
        throw failure(`${verb} (get)`, object, error);
      }
      const patch = decide(node);
      if (patch === null) return false;
      const body = { ...patch, metadata: { resourceVersion: node.metadata?.resourceVersion, ...patch.metadata } };
      try {
        await this.send(options, (o) => this.core.patchNode({ name: nodeName, body }, o), MERGE_PATCH);
        return true;
      } catch (error) {
        if (goneIsDone && statusOf(error) === 404) return false;
        if (statusOf(error) === 409 && attempt < CONFLICT_ATTEMPTS) continue;
        throw failure(`${verb} (patch)`, object, error);
      }
    }
  }

  async listPods(nodeName: string, options?: KubeCallOptions): Promise<NodePod[]> {
    const fieldSelector = `spec.nodeName=${nodeName}`;
    const object = `pods on node/${nodeName}`;
    const list = listOf(await this.call("list pods", object, options, (o) => this.core.listPodForAllNamespaces({ fieldSelector }, o)), "list pods", object);
    return list.items.map((pod) => ({
      namespace: pod.metadata?.namespace ?? "",
      name: pod.metadata?.name ?? "",
      controllerKind: pod.metadata?.ownerReferences?.find((ref) => ref.controller === true)?.kind ?? null,
      phase: pod.status?.phase ?? "Unknown",
      labels: { ...pod.metadata?.labels },
    }));
  }

  async listNamespaces(labelSelector: string | null, options?: KubeCallOptions): Promise<string[]> {
    const object = labelSelector === null ? "namespaces" : `namespaces matching ${JSON.stringify(labelSelector)}`;
    const list = listOf(
      await this.call("list namespaces", object, options, (o) => this.core.listNamespace(labelSelector === null ? {} : { labelSelector }, o)),
      "list namespaces",
      object,
    );
    return list.items.map((ns) => ns.metadata?.name ?? "");
  }

  async evict(pod: NodePod, options: KubeCallOptions & { readonly dryRun: boolean }): Promise<EvictionOutcome> {
    const { namespace, name } = pod;
    const body: k8s.V1Eviction = { apiVersion: "policy/v1", kind: "Eviction", metadata: { namespace, name } };
    try {
      await this.send(options, (o) => this.core.createNamespacedPodEviction({ namespace, name, body, ...(options.dryRun ? { dryRun: "All" } : {}) }, o));
      return { kind: "evicted" };
    } catch (error) {
      const status = statusOf(error);
      if (status === 404) return { kind: "not-found" };
      if (status === 429 && error instanceof k8s.ApiException) {
        return { kind: "refused", message: statusOfBody(error).message || "eviction refused (HTTP 429)" };
      }
      return { kind: "error", message: describeFailure(options.dryRun ? "evict (dry run)" : "evict", `pod/${namespace}/${name}`, error) };
    }
  }

  async deletePod(pod: NodePod, options?: KubeCallOptions): Promise<boolean> {
    try {
      await this.send(options, (o) => this.core.deleteNamespacedPod({ namespace: pod.namespace, name: pod.name }, o));
      return true;
    } catch (error) {
      if (statusOf(error) === 404) return false;
      throw failure("delete pod", `pod/${pod.namespace}/${pod.name}`, error);
    }
  }

  async recordEvent(nodeName: string, event: NodeEvent, options?: KubeCallOptions): Promise<void> {
    const now = new Date();
    const body: k8s.CoreV1Event = {
      apiVersion: "v1",
      kind: "Event",
      // Nodes are cluster-scoped; kubelet and kubectl keep node events in "default".
      metadata: { namespace: "default", name: `${nodeName.slice(0, 230)}.${randomBytes(8).toString("hex")}` },
      // `kubectl describe node` finds events by uid = node name, the convention kubelet started.
      involvedObject: { apiVersion: "v1", kind: "Node", name: nodeName, uid: nodeName },
      type: event.type,
      reason: event.reason,
      message: event.message,
      source: { component: COMPONENT },
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
      // A plain Date would serialise with milliseconds, which the API server rejects as a MicroTime.
      eventTime: new k8s.V1MicroTime(now.getTime()),
      // The API server requires these three once eventTime is set.
      reportingComponent: COMPONENT,
      reportingInstance: hostname().slice(0, 128),
      action: event.reason.slice(0, 128),
    };
    await this.call("record event", `event ${event.reason} on node/${nodeName}`, options, (o) =>
      this.core.createNamespacedEvent({ namespace: "default", body }, o),
    );
  }

  /** One request, bounded by the timeout and `options.signal`; failures pass unchanged (see {@link boundedRequest}). */
  private send<T>(options: KubeCallOptions | undefined, request: (o: k8s.ConfigurationOptions) => Promise<T>, base?: k8s.ConfigurationOptions): Promise<T> {
    return boundedRequest(this.timeoutSeconds, options, request, { ...base, httpApi: this.http });
  }

  /** {@link send}, with every failure described as `<operation>: <object>: <what went wrong>`. */
  private async call<T>(
    operation: string,
    object: string,
    options: KubeCallOptions | undefined,
    request: (o: k8s.ConfigurationOptions) => Promise<T>,
  ): Promise<T> {
    try {
      return await this.send(options, request);
    } catch (error) {
      throw failure(operation, object, error);
    }
  }
}
