import type { Constraints } from "../shared/constraints.js";
import type { MachineState } from "../sabakan/machine-params.js";

/** The effects a Kubernetes taint can have. */
export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;
export type TaintEffect = (typeof TAINT_EFFECTS)[number];

/** A Kubernetes taint as CKE's cluster.yml spells it. */
export interface Taint {
  readonly key: string;
  readonly value?: string;
  readonly effect: TaintEffect;
}

/** One entry of the template's `nodes[]`: what every node made from it shares. */
export interface NodeTemplate {
  readonly user: string;
  readonly control_plane: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
}

/** The keys of cluster.yml that apply to the whole cluster, the same in the template and the generated cluster. */
export interface ClusterWide {
  readonly name: string;
  readonly service_subnet: string;
  /** Taint keys tolerated on control planes (CKE's `control_plane_tolerations`). */
  readonly control_plane_tolerations: readonly string[];
  /** Every other top-level key of cluster.yml (`options`, `dns_service`, ...), passed through untouched. */
  readonly extra: Readonly<Record<string, unknown>>;
}

/** A validated cluster template (CKE's cluster.yml syntax without node addresses). */
export interface ClusterTemplate extends ClusterWide {
  readonly nodes: readonly NodeTemplate[];
}

/** What the generator needs of one sabakan machine. Dates are epoch milliseconds. */
export interface ClusterMachine {
  readonly serial: string;
  readonly rack: number;
  readonly indexInRack: number;
  readonly role: string;
  readonly ipv4: readonly string[];
  readonly registerDate: number;
  readonly retireDate: number;
  readonly state: MachineState;
  /** Seconds since the last state change (`status.duration`), as of sabakan's answer. */
  readonly durationSeconds: number;
  /** Epoch milliseconds of the last state change on kintsugi's clock (the answer's time less `status.duration`): durations as of `now` are measured from it. */
  readonly stateSince: number;
  readonly labels: Readonly<Record<string, string>>;
}

/** One node of a generated cluster. */
export interface ClusterNode {
  readonly address: string;
  readonly hostname?: string;
  readonly user: string;
  readonly control_plane: boolean;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly taints: readonly Taint[];
}

/** A generated cluster configuration: the template's cluster-wide keys and concrete nodes. */
export interface GeneratedCluster extends ClusterWide {
  readonly nodes: readonly ClusterNode[];
}

/**
 * The constraints that size the cluster (maximumWorkers 0 = no limit) and pace control-plane replacement
 * (waitSecondsToReplaceControlPlane 0 = at once).
 */
export type ClusterConstraints = Pick<Constraints, "controlPlaneCount" | "minimumWorkers" | "maximumWorkers" | "waitSecondsToReplaceControlPlane">;

/** Kubernetes Node taints, by node name (= the node's address). */
export type NodeTaints = ReadonlyMap<string, readonly Taint[]>;

/** Node names (and addresses) of Kubernetes Nodes that carry `cke.cybozu.com/reboot: "true"`: CKE is rebooting them. */
export type RebootingNodes = ReadonlySet<string>;

/** The outcome of a generation: the cluster and one sentence per change, or why nothing could be generated. */
export type GenerationResult =
  | { readonly ok: true; readonly cluster: GeneratedCluster; readonly changes: readonly string[]; readonly waiting: Waiting }
  | { readonly ok: false; readonly error: string };

/**
 * Control planes whose machine is in a replaceable state but are kept: one sentence each, and the earliest time
 * (epoch ms) at which one of them is due for replacement, or null when none is due by time alone.
 */
export interface Waiting {
  readonly reasons: readonly string[];
  readonly recheckAt: number | null;
}

/** Nothing waits. */
export const NOT_WAITING: Waiting = { reasons: [], recheckAt: null };

/** Label keys and values CKE's sabakan integration reads or writes. */
export const ROLE_LABEL = "cke.cybozu.com/role";
export const WEIGHT_LABEL = "cke.cybozu.com/weight";
export const STATE_TAINT = "cke.cybozu.com/state";
export const MASTER_TAINT = "cke.cybozu.com/master";
/** Retired machines are removed once they have been RETIRED for this many seconds. */
export const RETIRED_WAIT_SECONDS = 300;
