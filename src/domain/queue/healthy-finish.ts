import { drainStopOf, type ProgressContext } from "./repair-progress.js";
import { describeHold, type MachineHold } from "../holds/machine-holds.js";
import type { RepairOperationConfig } from "./repair-config.js";
import type { RepairEntry } from "./repair-entry.js";
import type { EntryTransition, RepairAction } from "./repair-plan.js";
import type { ProofVerdict } from "./proof-judgement.js";

/**
 * CKE's health rule (`op/status.go` checks every unfinished entry, `server/strategy.go` finishes a healthy one before
 * any other rule but a deletion): the action that finishes an entry whose health check said healthy (and, with
 * `success_requires`, whose repair is proven or was never needed), whatever its step and step status, back-off,
 * disabled queue or control-plane turn. `transitions` are what the pass already found (a new node name, the final
 * evidence). The success command runs as in CKE, then the node kintsugi cordoned is uncordoned.
 *
 * On a held machine (`hold` in force) the entry still succeeds: a hold stops the commands kintsugi runs on the
 * machine, never a success, and a held machine that recovered must not be left in the queue to be repaired later.
 * Its success command is therefore not run (a note in the history says so and names the hold); the operator who
 * holds the machine runs it if it is still wanted. The node is uncordoned all the same: the cordon is kintsugi's own
 * (a node someone else cordoned is never touched), and a finished entry's cordon would be lifted as a stray anyway.
 */
export function finishHealthy(
  entry: RepairEntry,
  transitions: readonly EntryTransition[],
  operation: RepairOperationConfig,
  hold: MachineHold | undefined,
): RepairAction {
  if (hold === undefined || operation.successCommand === null) {
    return { entry, transitions, effect: { kind: "success-command", operation } };
  }
  const current = transitions.at(-1)?.after ?? entry;
  const skipped: EntryTransition = {
    after: current,
    kind: "note",
    reason: `healthy while the machine is held (${describeHold(hold)}): the entry succeeds, but its success command is not run`,
  };
  return { entry, transitions: [...transitions, skipped], effect: { kind: "success-command", operation: { ...operation, successCommand: null } } };
}

/**
 * kintsugi, with `success_requires`: an entry whose every signal holds while its dwell runs is recovering as asked,
 * so nothing disrupts it until the dwell ends or a signal relapses: its watch does not end, its next step (drain or
 * repair command) does not start, and a completed drain does not run the command. What still happens is what stops
 * a disruption: a drain past its eviction timeout, or abandoned by a disabled queue, backs off (and uncordons).
 * Returns null when the entry is not dwelling (the other rules apply), else the action, if any, and when to look again.
 */
export function holdWhileDwelling(
  entry: RepairEntry,
  current: RepairEntry,
  transitions: EntryTransition[],
  proof: ProofVerdict | undefined,
  ctx: ProgressContext,
): { action: RepairAction | null; wakeAt: number | null } | null {
  if (proof?.kind !== "unproven" || !proof.dwelling) return null;
  const stop = drainStopOf(current, ctx, transitions);
  if (stop) return { action: { entry, transitions: stop.transitions, effect: stop.effect }, wakeAt: stop.wakeAt };
  return { action: null, wakeAt: proof.wakeAt };
}
