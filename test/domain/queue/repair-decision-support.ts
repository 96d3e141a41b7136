import assert from "node:assert/strict";
import type { ControlPlane } from "../../../src/domain/queue/control-planes.js";
import type { MachineHold } from "../../../src/domain/holds/machine-holds.js";
import type { RepairConfig, RepairOperationConfig, RepairStepConfig } from "../../../src/domain/queue/repair-config.js";
import { EMPTY_REPAIR_CONFIG } from "../../../src/domain/queue/repair-config.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import { snapshotRepairConfig, type RepairObservation, type RepairPlan, type RepairSnapshot } from "../../../src/domain/queue/repair-plan.js";

/** A fixed `now` on a whole second plus 500 ms, so truncation is visible. */
export const T = Date.UTC(2026, 10, 22, 6, 0, 0, 500);
export const SEC = 1000;
export const fixedRandom = (value: number) => () => value;

export const stepCfg = (over: Partial<RepairStepConfig> = {}): RepairStepConfig => ({
  repairCommand: ["repair"],
  commandTimeoutSeconds: 30,
  commandRetries: 0,
  commandInterval: 0,
  needDrain: false,
  watchSeconds: 60,
  ...over,
});

export const operation = (steps: RepairStepConfig[], over: Partial<RepairOperationConfig> = {}): RepairOperationConfig => ({
  operation: "op",
  repairSteps: steps,
  healthCheckCommand: ["check"],
  commandTimeoutSeconds: 30,
  successCommand: null,
  successCommandTimeout: 30,
  ...over,
});

/** Type "m" has operation "op" with a drain step (watch 60 s) and a plain step (watch 0). */
export const CONFIG: RepairConfig = {
  ...EMPTY_REPAIR_CONFIG,
  maxConcurrentRepairs: 1,
  evictionTimeoutSeconds: 600,
  repairProcedures: [{ machineTypes: ["m"], repairOperations: [operation([stepCfg({ needDrain: true }), stepCfg({ watchSeconds: 0 })])] }],
};

export const entry = (index: number, over: Partial<RepairEntry> = {}): RepairEntry => ({
  index,
  address: `10.0.0.${index}`,
  nodename: "",
  serial: null,
  machineType: "m",
  operation: "op",
  status: "queued",
  step: 0,
  stepStatus: "waiting",
  deleted: false,
  lastTransitionTime: T - 3600 * SEC - 500,
  drainBackoffCount: 0,
  drainBackoffExpire: null,
  createdAt: T - 3600 * SEC,
  source: "operator",
  ...over,
});

export const obs = (over: Partial<RepairObservation> = {}): RepairObservation => ({ nodename: "", job: "none", drainJobDone: false, healthy: false, ...over });

export function snapshot(
  entries: RepairEntry[],
  observations: Record<number, Partial<RepairObservation>> = {},
  options: { enabled?: boolean; config?: RepairConfig; max?: number; controlPlanes?: readonly ControlPlane[] } = {},
): RepairSnapshot {
  const config = { ...(options.config ?? CONFIG), ...(options.max !== undefined && { maxConcurrentRepairs: options.max }) };
  const map = new Map<number, RepairObservation>();
  for (const e of entries) map.set(e.index, obs({ nodename: e.nodename, ...observations[e.index] }));
  return {
    entries,
    observations: map,
    repair: snapshotRepairConfig(config),
    queueEnabled: options.enabled ?? true,
    controlPlanes: options.controlPlanes ?? [],
  };
}

/** An API hold on `address` by alice ("vendor swap"), set a minute before T, with no end unless said otherwise. */
export const machineHold = (address: string, over: Partial<MachineHold> = {}): MachineHold => ({
  address,
  reason: "vendor swap",
  setBy: "alice",
  setAt: T - 60 * SEC,
  until: null,
  source: "api",
  ...over,
});

/** `s` with `holds` in force. */
export const withHolds = (s: RepairSnapshot, ...holds: MachineHold[]): RepairSnapshot => ({ ...s, holds: new Map(holds.map((h) => [h.address, h])) });

/** Per action: the index, the states it passes through, and the effect. */
export const summary = (plan: RepairPlan) =>
  plan.actions.map((a) => ({
    index: a.entry.index,
    states: a.transitions.map((t) => `${t.after.status}/${t.after.step}/${t.after.stepStatus}`),
    effect: a.effect.kind,
  }));

/** A queued entry of CONFIG starting a step without a drain: watching, repair command. */
export const starts = (index: number) => ({ index, states: ["processing/0/watching"], effect: "repair-command" as const });

/** A processing entry whose 60 s watch is over: if it moves, it goes to step 2 and runs its command. */
export const watched = (index: number, over: Partial<RepairEntry> = {}) =>
  entry(index, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 61 * SEC, ...over });

/** One named case of the decision table: the snapshot, the actions wanted, and every entry a rule leaves waiting. */
export interface DecisionCase {
  readonly name: string;
  readonly snapshot: RepairSnapshot;
  readonly want: ReturnType<typeof summary>;
  /** Every held entry, by index, with a pattern its reason must match. */
  readonly held: Record<number, RegExp>;
  readonly wakeAt?: number | null;
}

/** Decides `c.snapshot` at T and checks the actions, that exactly `c.held` are held and why, and `c.wakeAt` when given. */
export function assertDecision(c: DecisionCase): RepairPlan {
  const plan = decideRepairActions(c.snapshot, T, fixedRandom(0));
  assert.deepEqual(summary(plan), c.want);
  assert.deepEqual([...plan.held.keys()].sort(), Object.keys(c.held).map(Number).sort());
  for (const [index, reason] of Object.entries(c.held)) assert.match(plan.held.get(Number(index))?.message ?? "", reason);
  if (c.wakeAt !== undefined) assert.equal(plan.wakeAt, c.wakeAt);
  return plan;
}
