import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import type { RepairPlan, RepairSnapshot } from "../../../src/domain/queue/repair-plan.js";
import { CONFIG, SEC, T, entry, fixedRandom, operation, snapshot, stepCfg } from "./repair-decision-support.js";

const T0 = T - 500; // T truncated to whole seconds, as transitions store it

/** A compact view of a plan: per action, the index, the states it passes through, and the effect. */
function summary(plan: RepairPlan) {
  return plan.actions.map((a) => ({
    index: a.entry.index,
    states: a.transitions.map((t) => `${t.after.status}/${t.after.step}/${t.after.stepStatus}${t.kind === "note" ? " (note)" : ""}`),
    effect: a.effect.kind,
  }));
}

interface Case {
  readonly name: string;
  readonly snapshot: RepairSnapshot;
  readonly want: ReturnType<typeof summary>;
  readonly wakeAt?: number | null;
  readonly reason?: RegExp;
}

const twoSteps = CONFIG.repairProcedures[0]!.repairOperations[0]!;
const node = (i: number) => ({ nodename: `node${i}` });

const CASES: Case[] = [
  // 1. Delete
  { name: "deleted queued entry is dequeued", snapshot: snapshot([entry(1, { deleted: true })]), want: [{ index: 1, states: [], effect: "dequeue" }] },
  {
    name: "deleted entry with a running repair command is dequeued (the runner stops the command)",
    snapshot: snapshot([entry(1, { deleted: true, status: "processing", stepStatus: "watching" })], { 1: { job: "repair-command" } }),
    want: [{ index: 1, states: [], effect: "dequeue" }],
  },
  {
    name: "deleted finished entry is dequeued",
    snapshot: snapshot([entry(1, { deleted: true, status: "succeeded" })]),
    want: [{ index: 1, states: [], effect: "dequeue" }],
  },
  {
    name: "deleted healthy entry is dequeued, not succeeded",
    snapshot: snapshot([entry(1, { deleted: true })], { 1: { healthy: true } }),
    want: [{ index: 1, states: [], effect: "dequeue" }],
  },
  {
    name: "deleted entry is dequeued while the queue is disabled",
    snapshot: snapshot([entry(1, { deleted: true })], {}, { enabled: false }),
    want: [{ index: 1, states: [], effect: "dequeue" }],
  },
  // Finished entries stay
  { name: "finished entries are left alone", snapshot: snapshot([entry(1, { status: "succeeded" }), entry(2, { status: "failed" })]), want: [] },
  // 2. Unknown procedure or operation
  {
    name: "unknown machine type fails at once with the reason",
    snapshot: snapshot([entry(1, { machineType: "hp" })]),
    want: [{ index: 1, states: ["failed/0/waiting"], effect: "uncordon" }],
    reason: /repair procedure not found for machine type "hp"/,
  },
  {
    name: "unknown operation fails at once",
    snapshot: snapshot([entry(1, { operation: "reboot" })]),
    want: [{ index: 1, states: ["failed/0/waiting"], effect: "uncordon" }],
    reason: /repair operation "reboot" not found/,
  },
  {
    name: "an entry failing for an unknown operation takes no slot",
    snapshot: snapshot([entry(1, { operation: "reboot" }), entry(2)], {}, { max: 1 }),
    want: [
      { index: 1, states: ["failed/0/waiting"], effect: "uncordon" },
      { index: 2, states: ["processing/0/watching"], effect: "repair-command" },
    ],
  },
  // 3. Health check
  {
    name: "queued entry already healthy succeeds without a repair command",
    snapshot: snapshot([entry(1)], { 1: { healthy: true } }),
    want: [{ index: 1, states: [], effect: "success-command" }],
  },
  {
    name: "healthy entries finish beyond max_concurrent_repairs",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "watching" }), entry(2), entry(3)],
      { 1: { healthy: true }, 2: { healthy: true }, 3: { healthy: true } },
      { max: 1 },
    ),
    want: [1, 2, 3].map((index) => ({ index, states: [], effect: "success-command" })),
  },
  {
    name: "health checks finish entries while the queue is disabled",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T0 })], { 1: { healthy: true } }, { enabled: false }),
    want: [{ index: 1, states: [], effect: "success-command" }],
  },
  {
    name: "healthy entry in drain back-off succeeds",
    snapshot: snapshot([entry(1, { status: "processing", drainBackoffCount: 1, drainBackoffExpire: T + 100 * SEC })], { 1: { healthy: true } }),
    want: [{ index: 1, states: [], effect: "success-command" }],
  },
  // 4. Concurrency
  {
    name: "max_concurrent_repairs 1: only the first queued entry starts",
    snapshot: snapshot([entry(1), entry(2)], {}, { max: 1 }),
    want: [{ index: 1, states: ["processing/0/watching"], effect: "repair-command" }],
  },
  {
    name: "max_concurrent_repairs 2: two start",
    snapshot: snapshot([entry(1), entry(2), entry(3)], {}, { max: 2 }),
    want: [1, 2].map((index) => ({ index, states: ["processing/0/watching"], effect: "repair-command" })),
  },
  {
    name: "processing entries take slots before queued ones, whatever their index",
    snapshot: snapshot([entry(1), entry(2, { status: "processing", stepStatus: "watching", lastTransitionTime: T0 - 120 * SEC })], {}, { max: 1 }),
    want: [{ index: 2, states: ["processing/1/waiting", "processing/1/watching"], effect: "repair-command" }],
  },
  {
    name: "a processing entry in drain back-off takes no slot",
    snapshot: snapshot([entry(1, { status: "processing", drainBackoffCount: 1, drainBackoffExpire: T + 200 * SEC }), entry(2)], {}, { max: 1 }),
    want: [{ index: 2, states: ["processing/0/watching"], effect: "repair-command" }],
    wakeAt: T + 200 * SEC,
  },
  {
    name: "an expired back-off retries the drain and takes a slot",
    snapshot: snapshot([entry(1, { status: "processing", nodename: "node1", drainBackoffCount: 1, drainBackoffExpire: T - 1 }), entry(2)], {}, { max: 1 }),
    want: [{ index: 1, states: ["processing/0/draining"], effect: "drain" }],
    wakeAt: T0 + 600 * SEC + 1,
  },
  {
    name: "one machine is never repaired by two entries at once",
    snapshot: snapshot([entry(1), entry(2, { address: "10.0.0.1" }), entry(3)], {}, { max: 3 }),
    want: [1, 3].map((index) => ({ index, states: ["processing/0/watching"], effect: "repair-command" })),
  },
  {
    name: "a queued entry waits while another entry repairs its machine",
    snapshot: snapshot(
      [entry(1, { address: "10.0.0.9" }), entry(2, { address: "10.0.0.9", status: "processing", stepStatus: "watching", lastTransitionTime: T0 })],
      { 2: { job: "repair-command" } },
      { max: 5 },
    ),
    want: [],
  },
  {
    name: "an entry with a running job keeps its slot",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T0 }), entry(2)],
      { 1: { job: "repair-command" } },
      { max: 1 },
    ),
    want: [],
  },
  // 5. Waiting
  {
    name: "waiting, needs drain, is a node: drain starts",
    snapshot: snapshot([entry(1, { nodename: "node1" })]),
    want: [{ index: 1, states: ["processing/0/draining"], effect: "drain" }],
    wakeAt: T0 + 600 * SEC + 1,
  },
  {
    name: "waiting, needs drain, not a node: the step runs at once",
    snapshot: snapshot([entry(1)]),
    want: [{ index: 1, states: ["processing/0/watching"], effect: "repair-command" }],
  },
  {
    name: "waiting, step without drain on a node: the step runs",
    snapshot: snapshot([entry(1, { status: "processing", step: 1, nodename: "node1" })]),
    want: [{ index: 1, states: ["processing/1/watching"], effect: "repair-command" }],
  },
  { name: "disabled: a queued entry does not start", snapshot: snapshot([entry(1, { nodename: "node1" })], {}, { enabled: false }), want: [] },
  {
    name: "disabled: an expired back-off does not retry",
    snapshot: snapshot([entry(1, { status: "processing", drainBackoffCount: 1, drainBackoffExpire: T - 1 })], {}, { enabled: false }),
    want: [],
  },
  // 6. Draining
  {
    name: "draining, completed: the step runs",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T0 - 10 * SEC })], {
      1: { drainJobDone: true, drainCompleted: true },
    }),
    want: [{ index: 1, states: ["processing/0/watching"], effect: "repair-command" }],
  },
  {
    name: "draining, the machine stopped being a node: counts as drained",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T0 - 10 * SEC })], {
      1: { nodename: "" },
    }),
    want: [{ index: 1, states: ["processing/0/draining (note)", "processing/0/watching"], effect: "repair-command" }],
  },
  {
    name: "draining, pods remain: wait until the eviction deadline",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T0 - 10 * SEC })], {
      1: { drainJobDone: true, drainCompleted: false },
    }),
    want: [],
    wakeAt: T0 - 10 * SEC + 600 * SEC + 1,
  },
  {
    name: "draining, exactly at the eviction deadline: still waits (strict <)",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T - 600 * SEC })], {
      1: { drainJobDone: true, drainCompleted: false },
    }),
    want: [],
    wakeAt: T + 1,
  },
  {
    name: "draining, past the eviction deadline: back-off",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T - 600 * SEC - 1 })], {
      1: { drainJobDone: true, drainCompleted: false },
    }),
    want: [{ index: 1, states: ["processing/0/waiting"], effect: "abandon-drain" }],
    wakeAt: T + 300 * SEC,
  },
  {
    name: "draining, queue disabled: the drain is abandoned (back-off)",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T0 })],
      { 1: { job: "drain" } },
      { enabled: false },
    ),
    want: [{ index: 1, states: ["processing/0/waiting"], effect: "abandon-drain" }],
    wakeAt: T + 300 * SEC,
  },
  {
    name: "draining, the eviction job is running: wait",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T0 })], {
      1: { job: "drain", drainCompleted: true },
    }),
    want: [],
    wakeAt: T0 + 600 * SEC + 1,
  },
  {
    name: "draining after a restart: the eviction job runs again",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "draining", nodename: "node1", lastTransitionTime: T0 })], { 1: { drainJobDone: false } }),
    want: [{ index: 1, states: [], effect: "drain" }],
    wakeAt: T0 + 600 * SEC + 1,
  },
  // 7. Watching
  {
    name: "watching, watch not over: wait until just after it",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T0 - 30 * SEC })]),
    want: [],
    wakeAt: T0 + 30 * SEC + 1,
  },
  {
    name: "watching, exactly at the watch end: still waits (strict <)",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 60 * SEC })]),
    want: [],
    wakeAt: T + 1,
  },
  {
    name: "watching, watch over: next step handled at once",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 60 * SEC - 1 })]),
    want: [{ index: 1, states: ["processing/1/waiting", "processing/1/watching"], effect: "repair-command" }],
  },
  {
    name: "watching with watch_seconds 0, last step: fails",
    snapshot: snapshot([entry(1, { status: "processing", step: 1, stepStatus: "watching", lastTransitionTime: T0 })]),
    want: [{ index: 1, states: ["failed/1/watching"], effect: "uncordon" }],
    reason: /still unhealthy after the last step \(2\)/,
  },
  {
    name: "watch expiry past the last step with a watch: fails",
    snapshot: snapshot(
      [entry(1, { status: "processing", step: 0, stepStatus: "watching", lastTransitionTime: T - 61 * SEC })],
      {},
      { config: { ...CONFIG, repairProcedures: [{ machineTypes: ["m"], repairOperations: [operation([stepCfg()])] }] } },
    ),
    want: [{ index: 1, states: ["failed/0/watching"], effect: "uncordon" }],
    reason: /after watching 60s after the last step \(1\)/,
  },
  {
    name: "disabled: the watch expires into the next step, which does not run",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 61 * SEC })], {}, { enabled: false }),
    want: [{ index: 1, states: ["processing/1/waiting"], effect: "none" }],
  },
  {
    name: "disabled: past the last step the entry still fails",
    snapshot: snapshot([entry(1, { status: "processing", step: 1, stepStatus: "watching", lastTransitionTime: T0 })], {}, { enabled: false }),
    want: [{ index: 1, states: ["failed/1/watching"], effect: "uncordon" }],
  },
  {
    name: "watching while its repair command runs: no expiry",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 3600 * SEC })], { 1: { job: "repair-command" } }),
    want: [],
  },
  {
    name: "next step needs a drain on a node: drains",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "watching", nodename: "node1", lastTransitionTime: T - 61 * SEC })],
      {},
      { config: { ...CONFIG, repairProcedures: [{ machineTypes: ["m"], repairOperations: [operation([stepCfg(), stepCfg({ needDrain: true })])] }] } },
    ),
    want: [{ index: 1, states: ["processing/1/waiting", "processing/1/draining"], effect: "drain" }],
    wakeAt: T0 + 600 * SEC + 1,
  },
  // Config changed under an entry
  {
    name: "a step that no longer exists fails the entry",
    snapshot: snapshot([entry(1, { status: "processing", step: 5 })]),
    want: [{ index: 1, states: ["failed/5/waiting"], effect: "uncordon" }],
    reason: /step 6 does not exist/,
  },
  // Node name
  {
    name: "a new node name is recorded before the step starts",
    snapshot: snapshot([entry(1)], { 1: node(1) }),
    want: [{ index: 1, states: ["queued/0/waiting (note)", "processing/0/draining"], effect: "drain" }],
    wakeAt: T0 + 600 * SEC + 1,
  },
  // wakeAt
  {
    name: "wakeAt is the earliest of back-off, watch and drain deadlines",
    snapshot: snapshot(
      [
        entry(1, { status: "processing", drainBackoffCount: 1, drainBackoffExpire: T + 500 * SEC }),
        entry(2, { status: "processing", stepStatus: "watching", lastTransitionTime: T0 - 50 * SEC }),
        entry(3, { status: "processing", stepStatus: "draining", nodename: "n", lastTransitionTime: T0 }),
      ],
      { 3: { job: "drain" } },
      { max: 5 },
    ),
    want: [],
    wakeAt: T0 + 10 * SEC + 1,
  },
];

describe("decideRepairActions", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const plan = decideRepairActions(c.snapshot, T, fixedRandom(0));
      assert.deepEqual(summary(plan), c.want);
      if (c.wakeAt !== undefined) assert.equal(plan.wakeAt, c.wakeAt);
      if (c.reason) assert.match(plan.actions[0]?.transitions.at(-1)?.reason ?? "", c.reason);
      for (const a of plan.actions)
        for (const t of a.transitions)
          if (t.kind === "transition") assert.equal(t.after.lastTransitionTime, T0, "transitions are stamped with now in whole seconds");
    });
  }

  it("never mutates the snapshot", () => {
    const s = snapshot([entry(1, { nodename: "node1" }), entry(2, { deleted: true })], { 1: { nodename: "node2" } });
    const before = structuredClone({ entries: s.entries, observations: [...s.observations] });
    decideRepairActions(s, T, fixedRandom(0.5));
    assert.deepEqual({ entries: s.entries, observations: [...s.observations] }, before);
  });

  it("uses the step's own configuration", () => {
    const plan = decideRepairActions(snapshot([entry(1, { status: "processing", step: 1 })]), T, fixedRandom(0));
    const effect = plan.actions[0]?.effect;
    assert.equal(effect?.kind, "repair-command");
    assert.deepEqual(effect?.kind === "repair-command" ? effect.step : null, twoSteps.repairSteps[1]);
  });
});
