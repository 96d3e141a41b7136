import type { RepairOperationConfig } from "./repair-config.js";
import { isFinished, type RepairEntry } from "./repair-entry.js";
import type { RepairEffect, RepairObservation } from "./repair-plan.js";
import { evictionDeadline, type ProgressContext } from "./repair-progress.js";
import { waitForBackoff, waitForCommand, waitForDrain, waitForQueueEnabled, waitForWatch, type WaitingFor } from "./repair-wait.js";

/**
 * What an entry that no rule holds waits for once this pass's transitions are committed and its effect started:
 * `after` is the entry after the transitions (the entry itself when there are none), `effect` what the pass does
 * for it, `obs` what runs for it already. In order: an abandoned drain waits out its back-off; a command started or
 * running (diagnostics, success, repair) runs; a drain evicts pods until its eviction deadline; a watch watches
 * until the end of its `watch_seconds`; a step that cannot start waits for the queue to be enabled. Null when it
 * finished or has nothing to wait for.
 */
export function progressWait(
  after: RepairEntry,
  effect: RepairEffect,
  obs: RepairObservation,
  op: RepairOperationConfig,
  ctx: ProgressContext,
): WaitingFor | null {
  if (isFinished(after)) return null;
  if (effect.kind === "abandon-drain") return after.drainBackoffExpire === null ? null : waitForBackoff(after.drainBackoffExpire);
  if (effect.kind === "diagnostics" || obs.job === "diagnostics") return waitForCommand("diagnostics", after.step);
  if (effect.kind === "success-command" || obs.job === "success-command") return waitForCommand("success", after.step);
  if (effect.kind === "repair-command" || obs.job === "repair-command") return waitForCommand("repair", after.step);
  switch (after.stepStatus) {
    case "draining":
      return waitForDrain(after.step, after.nodename, evictionDeadline(after, ctx));
    case "watching": {
      const seconds = op.repairSteps[after.step]?.watchSeconds ?? 0;
      return seconds > 0 ? waitForWatch(after.step, seconds, (after.lastTransitionTime ?? 0) + seconds * 1000) : null;
    }
    case "waiting":
      return ctx.queueEnabled ? null : waitForQueueEnabled();
  }
}
