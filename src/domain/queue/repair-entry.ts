import type { RepairEvidence } from "../proof/repair-evidence.js";

/** The status of a repair entry, spelled as CKE stores it. */
export type RepairStatus = "queued" | "processing" | "succeeded" | "failed";

/** Where an entry is within its current step, spelled as CKE stores it. */
export type RepairStepStatus = "waiting" | "draining" | "watching";

export const REPAIR_STATUSES: readonly RepairStatus[] = ["queued", "processing", "succeeded", "failed"];
export const REPAIR_STEP_STATUSES: readonly RepairStepStatus[] = ["waiting", "draining", "watching"];

/** A request to repair one machine (CKE's RepairQueueEntry plus serial, source and creation time). */
export interface RepairEntry {
  readonly index: number;
  readonly address: string;
  readonly nodename: string;
  readonly serial: string | null;
  readonly machineType: string;
  readonly operation: string;
  readonly status: RepairStatus;
  readonly step: number;
  readonly stepStatus: RepairStepStatus;
  readonly deleted: boolean;
  /** Milliseconds since the epoch, truncated to whole seconds; null before the first transition. */
  readonly lastTransitionTime: number | null;
  readonly drainBackoffCount: number;
  /** Milliseconds since the epoch; null when the drain is not backing off. */
  readonly drainBackoffExpire: number | null;
  readonly createdAt: number;
  readonly source: string;
  /** kintsugi: the proof of repair gathered for the current step (operations with `success_requires`); absent: none. */
  readonly evidence?: RepairEvidence;
}

/** What a caller supplies to create an entry; everything else starts at CKE's initial values. */
export interface NewRepairEntry {
  readonly address: string;
  readonly machineType: string;
  readonly operation: string;
  readonly serial: string | null;
  readonly source: string;
}

/** A new entry as a rule decided it: its parameters, and the reason its `created` history record gives. */
export interface DecidedRepairEntry extends NewRepairEntry {
  readonly reason: string;
}

/** An entry as it is before the store gives it an index. */
export type UnindexedRepairEntry = Omit<RepairEntry, "index">;

/** Truncates a time to whole seconds, as CKE stores `last_transition_time`. */
export function truncateToSeconds(ms: number): number {
  return Math.floor(ms / 1000) * 1000;
}

/**
 * Builds a new entry: `queued / step 0 / waiting`, not a node until state is gathered, no back-off.
 * The transition time is `now` in whole seconds, as every later transition is.
 */
export function createRepairEntry(params: NewRepairEntry, now: number): UnindexedRepairEntry {
  return {
    address: params.address,
    nodename: "",
    serial: params.serial,
    machineType: params.machineType,
    operation: params.operation,
    status: "queued",
    step: 0,
    stepStatus: "waiting",
    deleted: false,
    lastTransitionTime: truncateToSeconds(now),
    drainBackoffCount: 0,
    drainBackoffExpire: null,
    createdAt: now,
    source: params.source,
  };
}

/** Finished entries (succeeded or failed) stay in the queue until deleted, but are never worked on again. */
export function isFinished(entry: Pick<RepairEntry, "status">): boolean {
  return entry.status === "succeeded" || entry.status === "failed";
}
