import type { ControlPlane } from "./control-planes.js";
import type { MachineHold } from "../holds/machine-holds.js";
import { findRepairOperation, type RepairConfig, type RepairOperationConfig, type RepairStepConfig } from "./repair-config.js";
import type { RepairEntry } from "./repair-entry.js";
import type { RepairHistoryKind } from "./repair-history.js";
import type { PacingInput } from "../pacing/repair-pacing.js";
import type { ObservedProof } from "../proof/repair-evidence.js";
import type { WaitingFor } from "./repair-wait.js";
import type { CommandOwner, InheritedCommand } from "./command-marker.js";

/** Which job this process runs for an entry right now (a job is at most one per entry). */
export type RunningJob = "none" | "drain" | "repair-command" | "success-command" | "diagnostics";

/**
 * Whether an entry's health is checked (and, healthy, it succeeds) while this job runs: with none, and during a
 * drain's eviction job (CKE's health rule at every step; the success stops the drain). A running command (repair,
 * success, diagnostics) is the step's own action: its outcome moves the entry on, and the next pass checks it.
 */
export function isCheckable(job: RunningJob): boolean {
  return job === "none" || job === "drain";
}

/** What the runner observed about one entry's machine in this pass. */
export interface RepairObservation {
  /** The Kubernetes Node whose InternalIP or name is the address; "" when the machine is not a node. */
  readonly nodename: string;
  /** The health check's verdict this pass; undefined when it was not run (a command is running, see isCheckable). */
  readonly healthy?: boolean;
  readonly job: RunningJob;
  /** This process finished the eviction job for the entry's current drain (false after a restart). */
  readonly drainJobDone: boolean;
  /** No pod is in the way of the drain any more; undefined when not observed. */
  readonly drainCompleted?: boolean;
  /** Its node is cordoned for this entry (kintsugi's cordon, its drain's); undefined when not observed (not a node). */
  readonly cordoned?: boolean;
  /** The signals proof of repair reads (kintsugi); gathered only for entries whose operation requires proof. */
  readonly proof?: ObservedProof;
  /** A command of the entry that no job of this process runs (see inheritedCommand); absent: none. */
  readonly inherited?: InheritedCommand;
}

/** Everything the decision needs: gathered by the runner, never mutated by the decision. */
export interface RepairSnapshot {
  /** The entries in the queue, in index order. */
  readonly entries: readonly RepairEntry[];
  readonly observations: ReadonlyMap<number, RepairObservation>;
  readonly repair: {
    readonly maxConcurrentRepairs: number;
    readonly evictionTimeoutSeconds: number;
    readonly lookup: (entry: RepairEntry) => { operation: RepairOperationConfig } | { message: string };
  };
  readonly queueEnabled: boolean;
  /** The cluster's control planes (empty when none are known). */
  readonly controlPlanes: readonly ControlPlane[];
  /** CKE's `control-plane-count` constraint; absent: 1, CKE's default. */
  readonly controlPlaneCount?: number;
  /** The machine holds in force, by canonical address (see activeHolds); absent: none. */
  readonly holds?: ReadonlyMap<string, MachineHold>;
  /** Slow start per failure domain (`repair.pacing`); absent = off, CKE's behaviour. */
  readonly pacing?: PacingInput;
  /**
   * The fence of machines against inherited commands (kintsugi): who decides (its repair commands are marked due
   * with it) and the margin of the waits. Absent: no command is marked due.
   */
  readonly fence?: { readonly owner: CommandOwner; readonly marginSeconds: number };
}

/** The `repair` part of a snapshot, from CKE's `repair` configuration. */
export function snapshotRepairConfig(config: RepairConfig): RepairSnapshot["repair"] {
  return {
    maxConcurrentRepairs: config.maxConcurrentRepairs,
    evictionTimeoutSeconds: config.evictionTimeoutSeconds,
    lookup: (entry: RepairEntry): { operation: RepairOperationConfig } | { message: string } => {
      const found = findRepairOperation(config, entry.machineType, entry.operation);
      return found.ok ? { operation: found.operation } : { message: found.message };
    },
  };
}

/** One change to persist: the entry after it, and the history record that explains it. */
export interface EntryTransition {
  readonly after: RepairEntry;
  readonly kind: RepairHistoryKind;
  readonly reason: string;
  /** Supporting detail for the history, such as a command's output. */
  readonly detail?: string | null;
}

/** What to do after the transitions are committed. */
export type RepairEffect =
  | { readonly kind: "none" }
  /** Stop any job, uncordon if kintsugi cordoned the node, and remove the entry (keeping its history). */
  | { readonly kind: "dequeue" }
  /** Uncordon the node if kintsugi cordoned it (after finishing or backing off). */
  | { readonly kind: "uncordon" }
  /** Stop the running drain job, then uncordon (the drain was abandoned). */
  | { readonly kind: "abandon-drain" }
  /** Run the eviction job for the current step (dry run, cordon, evict). */
  | { readonly kind: "drain" }
  /** Run the step's repair command with its retries; the entry was persisted as watching first. */
  | { readonly kind: "repair-command"; readonly step: RepairStepConfig }
  /** Run the operation's diagnostics command once; the entry was persisted as processing first. */
  | { readonly kind: "diagnostics"; readonly operation: RepairOperationConfig }
  /** Run the success command (if any), then finish the entry succeeded or failed. */
  | { readonly kind: "success-command"; readonly operation: RepairOperationConfig };

/** One decision about one entry: persist `transitions` (in order, in one transaction), then perform `effect`. */
export interface RepairAction {
  /** The entry as the decision saw it; the runner skips the action when the stored entry differs. */
  readonly entry: RepairEntry;
  readonly transitions: readonly EntryTransition[];
  readonly effect: RepairEffect;
}

/** The decision of one pass: the actions, and when to look again at the latest (null = no timer needed). */
export interface RepairPlan {
  readonly actions: readonly RepairAction[];
  readonly wakeAt: number | null;
  /** The unfinished entries a rule left where they are this pass, by index, with what they wait for. */
  readonly held: ReadonlyMap<number, WaitingFor>;
  /** The other unfinished entries that wait for their own step after this pass (a command, a drain, a watch, the disabled queue). */
  readonly waiting: ReadonlyMap<number, WaitingFor>;
  /** The processing control-plane entries that gave up the one-control-plane turn this pass: they hold no slot. */
  readonly yielded?: ReadonlySet<number>;
}

/** The earlier of two times to look again (null = none). */
export function earliest(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}
