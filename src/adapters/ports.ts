// kintsugi's own small interfaces at the edges. Adapters only translate between these and a library or protocol;
// the runner depends on these alone, so it can be driven by test servers speaking the real protocols.

import type { Taint } from "../domain/cluster/types.js";
import type { CommandOutcome } from "../domain/queue/command-outcome.js";
import type { EvictionOutcome } from "../domain/queue/drain-plan.js";
import type { PodFacts } from "../domain/queue/eviction-plan.js";
import type { MachineQueryVariables } from "../domain/sabakan/machine-params.js";
import type { SabakanMachine } from "../domain/sabakan/sabakan-machine.js";

export type { CommandOutcome, EvictionOutcome };

export interface CommandOptions {
  /** 0 = no timeout. On timeout the whole process group is killed. */
  readonly timeoutSeconds: number;
  /** Aborting kills the whole process group and resolves with `aborted`. */
  readonly signal?: AbortSignal;
  /** Variables added to the operator's environment (which the command otherwise inherits unchanged). */
  readonly env?: Readonly<Record<string, string>>;
}

/** Runs argv arrays (never a shell string). stdout and stderr are captured up to a size bound. */
export interface CommandRunner {
  run(argv: readonly string[], options: CommandOptions): Promise<CommandOutcome>;
}

/** A Kubernetes Node as far as repairs care. */
export interface ClusterNode {
  readonly name: string;
  readonly internalIPs: readonly string[];
  readonly unschedulable: boolean;
  readonly annotations: Readonly<Record<string, string>>;
  readonly labels: Readonly<Record<string, string>>;
  /** `spec.taints` (cluster generation keeps control planes off machines with taints it does not tolerate). */
  readonly taints: readonly Taint[];
  /** The node's conditions, with when each took its status (ms since the epoch; 0 when the API gave none). */
  readonly conditions: ReadonlyArray<{ readonly type: string; readonly status: string; readonly lastTransitionTime: number }>;
  /** `status.nodeInfo.bootID` (a new one each boot: proof of repair's `boot_id_changed`); absent when not reported. */
  readonly bootId?: string;
}

/** A Pod on a node, as far as draining cares (the domain's view of a pod). */
export type NodePod = PodFacts;

/** Options of every Kubernetes call. */
export interface KubeCallOptions {
  /** Aborting ends the call at once: it rejects (`evict`: resolves with an `error` outcome) saying it was aborted. */
  readonly signal?: AbortSignal;
}

export interface NodeEvent {
  readonly type: "Normal" | "Warning";
  /** A CamelCase reason such as `RepairStarted`. */
  readonly reason: string;
  readonly message: string;
}

/**
 * What kintsugi does to Kubernetes. Every method rejects with an Error whose message says what failed (the API's
 * status and message), except `evict`, which reports refusals and errors as outcomes. No call hangs: each request
 * gives up after the configured timeout (`kubernetes.timeout_seconds`), saying which call timed out after how long,
 * and ends early when its `signal` aborts.
 */
export interface NodeOperator {
  listNodes(options?: KubeCallOptions): Promise<ClusterNode[]>;
  /**
   * Marks the node unschedulable and annotates it with `CORDONED_BY_ANNOTATION` = `owner`. A node that is already
   * unschedulable without that annotation was cordoned by someone else: it is left as it is and `false` returned.
   */
  cordon(nodeName: string, owner: string, options?: KubeCallOptions): Promise<boolean>;
  /**
   * Makes the node schedulable again and drops the annotation, only when the annotation is present and names
   * `owner`: an entry never undoes a cordon that another entry (or someone else) made. A vanished node: false.
   */
  uncordon(nodeName: string, owner: string, options?: KubeCallOptions): Promise<boolean>;
  /** Every pod bound to the node (field selector `spec.nodeName`). */
  listPods(nodeName: string, options?: KubeCallOptions): Promise<NodePod[]>;
  /** The names of the namespaces that match a label selector (`null` = every namespace). */
  listNamespaces(labelSelector: string | null, options?: KubeCallOptions): Promise<string[]>;
  /** Eviction API (policy/v1); `dryRun` asks the server to check without evicting. */
  evict(pod: NodePod, options: KubeCallOptions & { readonly dryRun: boolean }): Promise<EvictionOutcome>;
  /** Deletes the pod; resolves `false` when it was already gone. */
  deletePod(pod: NodePod, options?: KubeCallOptions): Promise<boolean>;
  /** Records a Kubernetes Event about the node (core/v1 Event, involvedObject = the Node). */
  recordEvent(nodeName: string, event: NodeEvent, options?: KubeCallOptions): Promise<void>;
  /**
   * Calls `changed` whenever a Node is added, modified or deleted (a Kubernetes watch, restarted whenever the
   * server ends it) until the returned function is called, which also ends a watch request still waiting for its
   * answer (a hung watch never keeps the process from exiting).
   */
  watchNodes(changed: () => void): () => void;
}

/** Where sabakan-triggered repair finds unhealthy machines: sabakan's `searchMachines`. */
export interface MachineSource {
  /** Rejects with an Error saying what failed (unreachable, HTTP status, GraphQL errors, timeout, size, shape). */
  searchMachines(variables: MachineQueryVariables): Promise<SabakanMachine[]>;
}

/** The annotation by which kintsugi marks a cordon as its own, so it only ever uncordons nodes it cordoned. */
export const CORDONED_BY_ANNOTATION = "kintsugi.cybozu.io/cordoned-by";
