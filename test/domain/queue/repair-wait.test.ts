import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ControlPlane } from "../../../src/domain/queue/control-planes.js";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import { truncateToSeconds } from "../../../src/domain/queue/repair-entry.js";
import type { RepairPlan, RepairSnapshot } from "../../../src/domain/queue/repair-plan.js";
import { waitForDwell, type WaitingFor } from "../../../src/domain/queue/repair-wait.js";
import { CONFIG, SEC, T, entry, fixedRandom, machineHold, operation, snapshot, stepCfg, watched, withHolds } from "./repair-decision-support.js";

/** What the API answers for an entry: the rule that holds it, else what its own step waits for. */
const waitOf = (plan: RepairPlan, index: number): WaitingFor | null => plan.held.get(index) ?? plan.waiting.get(index) ?? null;

const plane = (name: string, address: string, over: Partial<ControlPlane> = {}): ControlPlane => ({
  name,
  addresses: [address],
  ready: true,
  rebooting: false,
  ...over,
});
const DIAGNOSED = {
  ...CONFIG,
  repairProcedures: [{ machineTypes: ["m"], repairOperations: [operation([stepCfg()], { diagnosticsCommand: ["collect-sel"] })] }],
};
const PACED = { domains: ["machine_type"] as const, racks: new Map<string, number>(), finished: [] };
/** A processing entry 10 s into its 60 s watch of step 1. */
const watching = (index: number) => entry(index, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC - 500 });
const START = truncateToSeconds(T);

interface WaitCase {
  readonly name: string;
  readonly snapshot: RepairSnapshot;
  /** Each entry's wait (null: none), compared whole; `entryIndex` only where given. */
  readonly want: Record<number, WaitingFor | null>;
}

const w = (kind: WaitingFor["kind"], message: string, until: number | null = null, domain: string | null = null, entryIndex?: number): WaitingFor => ({
  kind,
  message,
  until,
  domain,
  ...(entryIndex !== undefined && { entryIndex }),
});

const CASES: WaitCase[] = [
  {
    name: "QUEUE_DISABLED: a queued entry does not start while the queue is disabled",
    snapshot: snapshot([entry(1)], {}, { enabled: false }),
    want: { 1: w("QUEUE_DISABLED", "the repair queue is disabled") },
  },
  {
    name: "QUEUE_DISABLED: a watch that ends while the queue is disabled moves to the next step and waits there",
    snapshot: snapshot([watched(1)], {}, { enabled: false }),
    want: { 1: w("QUEUE_DISABLED", "the repair queue is disabled") },
  },
  {
    name: "CONCURRENCY: every slot is taken",
    snapshot: snapshot([watching(1), entry(2)], {}, { max: 1 }),
    want: {
      1: w("WATCHING", "step 1: watching the health check for 60s, until 2026-11-22T06:00:50.000Z", T - 500 + 50 * SEC),
      2: w("CONCURRENCY", "max_concurrent_repairs (1) reached"),
    },
  },
  {
    name: "CONTROL_PLANE: one control plane at a time, naming the entry in progress",
    snapshot: snapshot([watching(1), entry(2)], {}, { max: 5, controlPlanes: [plane("cp1", "10.0.0.1"), plane("cp2", "10.0.0.2")] }),
    want: {
      1: w("WATCHING", "step 1: watching the health check for 60s, until 2026-11-22T06:00:50.000Z", T - 500 + 50 * SEC),
      2: w("CONTROL_PLANE", "one control plane at a time: entry 1 is repairing control plane 10.0.0.1", null, null, 1),
    },
  },
  {
    name: "CONTROL_PLANE: another control plane is not Ready (no entry to name)",
    snapshot: snapshot([entry(2)], {}, { controlPlanes: [plane("cp1", "10.0.0.1", { ready: false }), plane("cp2", "10.0.0.2"), plane("cp3", "10.0.0.3")] }),
    want: { 2: w("CONTROL_PLANE", "control plane cp1 is not Ready") },
  },
  {
    name: "MACHINE_BUSY: another entry repairs the machine",
    snapshot: snapshot([watching(1), entry(2, { address: "10.0.0.1" })], {}, { max: 5 }),
    want: {
      1: w("WATCHING", "step 1: watching the health check for 60s, until 2026-11-22T06:00:50.000Z", T - 500 + 50 * SEC),
      2: w("MACHINE_BUSY", "machine 10.0.0.1 is being repaired by entry 1", null, null, 1),
    },
  },
  {
    name: "BACKOFF: a drain back-off, until it expires",
    snapshot: snapshot([entry(1, { status: "processing", drainBackoffCount: 1, drainBackoffExpire: T + 300 * SEC })]),
    want: { 1: w("BACKOFF", "waiting out its drain back-off until 2026-11-22T06:05:00.500Z", T + 300 * SEC) },
  },
  {
    name: "HOLD: a machine hold with an end",
    snapshot: withHolds(snapshot([entry(1)]), machineHold("10.0.0.1", { until: T + 3600 * SEC })),
    want: { 1: w("HOLD", "held by alice: vendor swap until 2026-11-22T07:00:00.500Z", T + 3600 * SEC) },
  },
  {
    name: "HOLD: a hold without an end has no until",
    snapshot: withHolds(snapshot([watching(1)]), machineHold("10.0.0.1")),
    want: { 1: w("HOLD", "held by alice: vendor swap") },
  },
  {
    name: "PACING: the machine type's allowance is used up, naming the domain",
    snapshot: { ...snapshot([watching(1), entry(2)], {}, { max: 5 }), pacing: PACED },
    want: {
      1: w("WATCHING", "step 1: watching the health check for 60s, until 2026-11-22T06:00:50.000Z", T - 500 + 50 * SEC),
      2: w("PACING", 'pacing: machine type "m" allows 1 repair in progress (no finished entry yet)', null, "machine_type=m"),
    },
  },
  {
    name: "DRAINING: a step that starts its drain evicts until the eviction timeout",
    snapshot: snapshot([entry(1, { nodename: "node1" })]),
    want: { 1: w("DRAINING", "step 1: draining node node1, evicting pods until 2026-11-22T06:10:00.000Z", START + 600 * SEC) },
  },
  {
    name: "DRAINING: a drain job running",
    snapshot: snapshot([entry(1, { nodename: "node1", status: "processing", stepStatus: "draining", lastTransitionTime: START - 100 * SEC })], {
      1: { job: "drain" },
    }),
    want: { 1: w("DRAINING", "step 1: draining node node1, evicting pods until 2026-11-22T06:08:20.000Z", START + 500 * SEC) },
  },
  {
    name: "BACKOFF: a drain abandoned in this pass (queue disabled) waits out the back-off it starts",
    snapshot: snapshot(
      [entry(1, { nodename: "node1", status: "processing", stepStatus: "draining", lastTransitionTime: START - 100 * SEC })],
      {},
      { enabled: false },
    ),
    want: { 1: w("BACKOFF", "waiting out its drain back-off until 2026-11-22T06:05:00.500Z", T + 300 * SEC) },
  },
  {
    name: "COMMAND: a step without a drain runs its repair command",
    snapshot: snapshot([entry(1)]),
    want: { 1: w("COMMAND", "step 1: running the repair command") },
  },
  {
    name: "COMMAND: a repair command running (its watch is over, but the command is not)",
    snapshot: snapshot([watched(1, { step: 1 })], { 1: { job: "repair-command", healthy: undefined } }),
    want: { 1: w("COMMAND", "step 2: running the repair command") },
  },
  {
    name: "COMMAND: a healthy entry runs its success command",
    snapshot: snapshot([watching(1)], { 1: { healthy: true } }),
    want: { 1: w("COMMAND", "running the success command") },
  },
  {
    name: "COMMAND: the diagnostics command before the first step",
    snapshot: snapshot([entry(1)], {}, { config: DIAGNOSED }),
    want: { 1: w("COMMAND", "running the diagnostics command") },
  },
  {
    name: "COMMAND: the diagnostics command running",
    snapshot: snapshot([entry(1, { status: "processing" })], { 1: { job: "diagnostics" } }, { config: DIAGNOSED }),
    want: { 1: w("COMMAND", "running the diagnostics command") },
  },
  { name: "nothing: an entry that fails after its last step waits for nothing", snapshot: snapshot([watched(1, { step: 1 })]), want: { 1: null } },
  { name: "nothing: a deleted entry is dequeued", snapshot: snapshot([entry(1, { deleted: true })]), want: { 1: null } },
  {
    name: "a rule's hold wins over the entry's own wait: a held drain still times out, and says it is held",
    snapshot: withHolds(
      snapshot([entry(1, { nodename: "node1", status: "processing", stepStatus: "draining", lastTransitionTime: T - 601 * SEC })]),
      machineHold("10.0.0.1"),
    ),
    want: { 1: w("HOLD", "held by alice: vendor swap") },
  },
];

describe("what every unfinished entry waits for", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const plan = decideRepairActions(c.snapshot, T, fixedRandom(0));
      for (const [index, want] of Object.entries(c.want)) assert.deepEqual(waitOf(plan, Number(index)), want, `entry ${index}`);
      for (const index of plan.held.keys()) assert.ok(!plan.waiting.has(index), `entry ${index} is both held and waiting`);
    });
  }
});

describe("waitForDwell", () => {
  const cases = [
    {
      name: "says how long and until when",
      seconds: 300,
      until: T + 300 * SEC,
      want: "healthy: proving the repair for 300s, until 2026-11-22T06:05:00.500Z (a relapse starts it again)",
    },
    {
      name: "a dwell of one second",
      seconds: 1,
      until: T + SEC,
      want: "healthy: proving the repair for 1s, until 2026-11-22T06:00:01.500Z (a relapse starts it again)",
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(waitForDwell(c.seconds, c.until), { kind: "DWELL", message: c.want, until: c.until, domain: null }));
});
