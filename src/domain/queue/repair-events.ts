import type { RepairEntry } from "./repair-entry.js";
import type { EntryTransition } from "./repair-plan.js";

/** A Kubernetes Event to record on the entry's node. */
export interface RepairNodeEvent {
  readonly type: "Normal" | "Warning";
  readonly reason: string;
  readonly message: string;
}

/**
 * The Node event that tells cluster users about a transition: drain started, repair command started, drain
 * back-off, succeeded, failed. Notes and transitions of machines that are not nodes give none.
 */
export function nodeEventFor(before: RepairEntry, t: EntryTransition): RepairNodeEvent | null {
  const after = t.after;
  if (t.kind !== "transition" || after.nodename === "") return null;
  const message = `repair entry ${after.index} (${after.operation}): ${t.reason}`;
  if (after.status === "succeeded") return { type: "Normal", reason: "RepairSucceeded", message };
  if (after.status === "failed") return { type: "Warning", reason: "RepairFailed", message };
  if (after.drainBackoffCount > before.drainBackoffCount) return { type: "Warning", reason: "RepairDrainBackoff", message };
  if (after.stepStatus === "draining") return { type: "Normal", reason: "RepairDrainStarted", message };
  if (after.stepStatus === "watching" && before.stepStatus !== "watching") return { type: "Normal", reason: "RepairStarted", message };
  return null;
}
