import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commandStarted } from "../../../src/domain/queue/command-marker.js";
import type { ControlPlane } from "../../../src/domain/queue/control-planes.js";
import { startEvidence } from "../../../src/domain/proof/repair-evidence.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import type { RepairObservation, RepairPlan, RepairSnapshot } from "../../../src/domain/queue/repair-plan.js";
import {
  CONFIG,
  SEC,
  T,
  assertDecision,
  entry,
  fixedRandom,
  machineHold,
  operation,
  snapshot,
  starts,
  stepCfg,
  summary,
  watched,
  withHolds,
  type DecisionCase,
} from "./repair-decision-support.js";

// Two control-plane entries must never wait for each other for good. Control plane cpN is at
// 10.0.0.N; entry N repairs it. A control plane that is held only because another one is not Ready, with no job
// running for it, gives up the turn so that the not-Ready one is repaired first (CKE server/strategy.go repairOps
// gives the turn only to an entry it works on this pass, and leaves drain back-offs out of the walk).

const T0 = T - 500;
const cp = (n: number, over: Partial<ControlPlane> = {}): ControlPlane => ({
  name: `cp${n}`,
  addresses: [`10.0.0.${n}`, `cp${n}`],
  ready: true,
  rebooting: false,
  ...over,
});
/** Entry N mid-repair: its step-1 repair command ran 10 s ago and its 60 s watch goes on (its machine is Ready, its health check fails). */
const midWatch = (index: number, over: Partial<RepairEntry> = {}) =>
  entry(index, { status: "processing", stepStatus: "watching", lastTransitionTime: T0 - 10 * SEC, ...over });
const NOT_READY_2 = /^control plane cp2 is not Ready$/;
const pacedByType = (s: RepairSnapshot): RepairSnapshot => ({ ...s, pacing: { domains: ["machine_type"], racks: new Map(), finished: [] } });

/** CONFIG's operation asking the health check to hold for a 300 s dwell before the entry succeeds. */
const DWELL_CONFIG = {
  ...CONFIG,
  repairProcedures: [
    {
      machineTypes: ["m"],
      repairOperations: [operation([stepCfg({ needDrain: true }), stepCfg({ watchSeconds: 0 })], { successProof: { requires: [], dwellSeconds: 300 } })],
    },
  ],
};
/** Evidence of a dwell that began 100 s before T: the health check has held since. */
const dwellingFor100s = { ...startEvidence(0, null), since: { health_check: T - 100 * SEC }, dwellStartedAt: T - 100 * SEC, dwellStarts: 1 };

interface TurnCase extends DecisionCase {
  /** The entry each held entry's wait names (`entryIndex`), for the entries listed. */
  readonly names?: Record<number, number | undefined>;
  /** The control planes that give up the turn (their nodes are uncordoned as stray cordons); default none. */
  readonly yielded?: number[];
}

const CASES: TurnCase[] = [
  {
    name: "mid-repair A (Ready, watching) and dead B: A gives up the turn, B starts in the one slot",
    snapshot: snapshot([midWatch(1), entry(2)], {}, { max: 1, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [starts(2)],
    held: { 1: NOT_READY_2 },
    names: { 1: 2 },
    yielded: [1],
    wakeAt: T0 - 10 * SEC + 60 * SEC + 1,
  },
  {
    name: "a yielded control plane's watch is still judged: when it runs out it moves to its next step, which waits for the turn",
    snapshot: snapshot([watched(1), entry(2)], {}, { controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [{ index: 1, states: ["processing/1/waiting"], effect: "none" }, starts(2)],
    held: { 1: NOT_READY_2 },
    yielded: [1],
  },
  {
    name: "a yielded control plane whose last step's watch runs out fails",
    snapshot: snapshot([watched(1, { step: 1 }), entry(2)], {}, { controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [{ index: 1, states: ["failed/1/watching"], effect: "uncordon" }, starts(2)],
    held: { 1: NOT_READY_2 },
    yielded: [1],
  },
  {
    name: "a drained control plane waiting for its repair command gives its drain up (a back-off) and the dead one starts",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "cp1", lastTransitionTime: T0 - 10 * SEC }), entry(2)],
      { 1: { drainJobDone: true, drainCompleted: true } },
      { controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] },
    ),
    want: [{ index: 1, states: ["processing/0/waiting"], effect: "abandon-drain" }, starts(2)],
    held: { 1: NOT_READY_2 },
    yielded: [1],
  },
  {
    name: "a control plane whose repair command runs keeps the turn until it ends; the dead one waits for it",
    snapshot: snapshot([midWatch(1), entry(2)], { 1: { job: "repair-command" } }, { max: 3, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [],
    held: { 1: NOT_READY_2, 2: /^one control plane at a time: entry 1 is repairing control plane 10\.0\.0\.1$/ },
    names: { 1: undefined, 2: 1 },
  },
  {
    name: "a control plane whose drain job evicts pods keeps the turn and its drain; the dead one waits for it",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "cp1", lastTransitionTime: T0 - 10 * SEC }), entry(2)],
      { 1: { job: "drain" } },
      { controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] },
    ),
    want: [],
    held: { 1: NOT_READY_2, 2: /^one control plane at a time: entry 1 is repairing control plane 10\.0\.0\.1$/ },
    names: { 1: undefined, 2: 1 },
  },
  {
    name: "a control plane whose repair command runs while another is not Ready takes its slot: a worker waits for max_concurrent_repairs",
    snapshot: snapshot([midWatch(1), entry(4)], { 1: { job: "repair-command" } }, { max: 1, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: [],
    held: { 1: NOT_READY_2, 4: /^max_concurrent_repairs \(1\) reached$/ },
  },
  {
    name: "a control plane whose drain runs while another is not Ready takes its slot: a worker waits for max_concurrent_repairs",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "cp1", lastTransitionTime: T0 - 10 * SEC }), entry(4)],
      { 1: { job: "drain" } },
      { max: 1, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] },
    ),
    want: [],
    held: { 1: NOT_READY_2, 4: /^max_concurrent_repairs \(1\) reached$/ },
  },
  {
    name: "a running repair is not overtaken: B's command runs, so older A (Ready, watch over) yields to it and starts no command",
    snapshot: snapshot([watched(1), midWatch(2)], { 2: { job: "repair-command" } }, { max: 3, controlPlanes: [cp(1), cp(2)] }),
    want: [{ index: 1, states: ["processing/1/waiting"], effect: "none" }],
    held: { 1: /^one control plane at a time: entry 2 is repairing control plane 10\.0\.0\.2$/ },
    names: { 1: 2 },
    yielded: [1],
  },
  {
    name: "a control plane in drain back-off does not keep the turn: another control plane starts",
    snapshot: snapshot(
      [entry(1, { status: "processing", nodename: "cp1", drainBackoffCount: 1, drainBackoffExpire: T + 200 * SEC }), entry(2)],
      {},
      { max: 5, controlPlanes: [cp(1), cp(2)] },
    ),
    want: [starts(2)],
    held: { 1: /drain back-off/ },
    wakeAt: T + 200 * SEC,
  },
  {
    name: "pacing by machine type: a yielded control plane takes none of its type's allowance, so a worker of that type starts",
    snapshot: pacedByType(snapshot([midWatch(1), entry(5)], {}, { max: 5, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] })),
    want: [starts(5)],
    held: { 1: NOT_READY_2 },
    names: { 1: undefined },
    yielded: [1],
  },
  {
    name: "pacing by machine type: the dead control plane's entry gets its type's one repair, not the yielded one",
    snapshot: pacedByType(snapshot([midWatch(1), entry(2), entry(5)], {}, { max: 5, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] })),
    want: [starts(2)],
    held: { 1: NOT_READY_2, 5: /^pacing: machine type "m" allows 1 repair in progress/ },
    yielded: [1],
  },
  {
    name: "two control planes both not Ready: each entry names the other and says they wait for each other",
    snapshot: snapshot([midWatch(1), entry(2)], {}, { max: 5, controlPlanes: [cp(1, { ready: false }), cp(2, { ready: false }), cp(3), cp(4), cp(6)] }),
    want: [],
    yielded: [1],
    held: {
      1: /^control plane cp2 is not Ready; entries 1 and 2 wait for each other: neither moves until one of them recovers, is repaired by hand or is deleted$/,
      2: /^control plane cp1 is not Ready; entries 1 and 2 wait for each other/,
    },
    names: { 1: 2, 2: 1 },
  },
  {
    name: "a yielded control plane whose dwell holds its expired watch open is not failed: the dwell holds the watch on the yield path as on the normal one",
    snapshot: snapshot(
      [watched(1, { step: 1, evidence: dwellingFor100s }), entry(2)],
      { 1: { healthy: true } },
      { config: DWELL_CONFIG, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] },
    ),
    // Entry 2's boot ID is noted before its command: its operation asks for proof.
    want: [{ ...starts(2), states: ["processing/0/watching", "processing/0/watching"] }],
    held: { 1: NOT_READY_2 },
    yielded: [1],
    wakeAt: T + 200 * SEC,
  },
  {
    name: "a hold on mid-repair A does not keep the turn from dead B: the yield rule runs for a held control plane too, and B starts",
    snapshot: withHolds(snapshot([midWatch(1), entry(2)], {}, { max: 3, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }), machineHold("10.0.0.1")),
    want: [starts(2)],
    held: { 1: /^held by alice: vendor swap$/ },
    yielded: [1],
  },
  {
    name: "a held control plane drained and waiting for its command gives its drain up (a back-off) when it yields, and dead B starts",
    snapshot: withHolds(
      snapshot(
        [entry(1, { status: "processing", stepStatus: "draining", nodename: "cp1", lastTransitionTime: T0 - 10 * SEC }), entry(2)],
        { 1: { drainJobDone: true, drainCompleted: true } },
        { max: 3, controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] },
      ),
      machineHold("10.0.0.1"),
    ),
    want: [{ index: 1, states: ["processing/0/waiting"], effect: "abandon-drain" }, starts(2)],
    held: { 1: /^held by alice/ },
    yielded: [1],
  },
  {
    name: "a held control plane that no control-plane rule holds keeps the turn (its node may be cordoned): another Ready one waits",
    snapshot: withHolds(snapshot([midWatch(1), entry(3)], {}, { max: 3, controlPlanes: [cp(1), cp(2), cp(3)] }), machineHold("10.0.0.1")),
    want: [],
    held: { 1: /^held by alice/, 3: /^one control plane at a time: entry 1 is repairing control plane 10\.0\.0\.1$/ },
    names: { 3: 1 },
  },
  {
    name: "a control plane held while another is being rebooted keeps the turn (the reboot ends by itself)",
    snapshot: snapshot([midWatch(1), entry(3)], {}, { max: 5, controlPlanes: [cp(1), cp(2, { rebooting: true }), cp(3)] }),
    want: [],
    held: { 1: /^control plane cp2 is being rebooted$/, 3: /^one control plane at a time: entry 1/ },
    names: { 1: undefined, 3: 1 },
  },
  {
    name: "a control plane drained for its step, held while another is being rebooted, takes its slot: a worker waits for max_concurrent_repairs",
    snapshot: snapshot([midWatch(1), entry(4)], {}, { max: 1, controlPlanes: [cp(1), cp(2, { rebooting: true }), cp(3)] }),
    want: [],
    held: { 1: /^control plane cp2 is being rebooted$/, 4: /^max_concurrent_repairs \(1\) reached$/ },
  },
  {
    name: "a control plane back with the turn, its node uncordoned, does not take the slot of a worker cordoned mid-step: its watch runs out and it waits",
    snapshot: snapshot(
      [midWatch(1, { lastTransitionTime: T0 - 100 * SEC }), midWatch(4)],
      { 1: { cordoned: false }, 4: { cordoned: true } },
      { max: 1, controlPlanes: [cp(1), cp(2), cp(3)] },
    ),
    want: [],
    held: { 1: /^max_concurrent_repairs \(1\) reached$/ },
  },
  {
    name: "a control plane whose command another replica started may still run keeps its place first, uncordoned: the worker's next step waits",
    snapshot: snapshot(
      [midWatch(1), midWatch(4, { lastTransitionTime: T0 - 100 * SEC })],
      {
        1: {
          cordoned: false,
          inherited: { kind: "may-run", marker: commandStarted("repair", "1-1-1-ab", { replica: "gone", run: "r0" }, T - 5_000, 30), until: T + 35_000 },
        },
        4: { cordoned: true },
      },
      { max: 1, controlPlanes: [cp(1), cp(2), cp(3)] },
    ),
    want: [],
    held: { 1: /may still be running/, 4: /^max_concurrent_repairs \(1\) reached$/ },
  },
  {
    name: "a control plane watching with its node cordoned for it keeps its place first: the worker waits",
    snapshot: snapshot(
      [midWatch(1, { lastTransitionTime: T0 - 100 * SEC }), midWatch(4)],
      { 1: { cordoned: true }, 4: { cordoned: true } },
      { max: 1, controlPlanes: [cp(1), cp(2), cp(3)] },
    ),
    want: [{ index: 1, states: ["processing/1/waiting", "processing/1/watching"], effect: "repair-command" }],
    held: { 4: /^max_concurrent_repairs \(1\) reached$/ },
  },
];

describe("decideRepairActions: control planes yield the turn", () => {
  for (const c of CASES) {
    it(c.name, () => {
      const plan = assertDecision(c);
      for (const [index, named] of Object.entries(c.names ?? {})) assert.equal(plan.held.get(Number(index))?.entryIndex, named, `entry ${index} names`);
      assert.deepEqual([...(plan.yielded ?? [])], c.yielded ?? [], "yielded");
    });
  }
});

/** Commits a pass as the runner would: each action's last transition; a success command that ran succeeds. */
function applied(entries: readonly RepairEntry[], plan: RepairPlan): RepairEntry[] {
  return entries.map((e) => {
    const action = plan.actions.find((a) => a.entry.index === e.index);
    const after = action?.transitions.at(-1)?.after ?? e;
    return action?.effect.kind === "success-command" ? { ...after, status: "succeeded" } : after;
  });
}

describe("decideRepairActions: mid-repair A and dead B, pass after pass", () => {
  it("B is repaired first, A resumes once B is Ready, and both finish", () => {
    let entries: RepairEntry[] = [midWatch(1), entry(2)];
    const pass = (at: number, healthy: Record<number, boolean>, bReady: boolean) => {
      const s = snapshot(
        entries,
        Object.fromEntries(entries.map((e) => [e.index, { healthy: healthy[e.index] ?? false } satisfies Partial<RepairObservation>])),
        { max: 1, controlPlanes: [cp(1), cp(2, { ready: bReady }), cp(3)] },
      );
      const plan = decideRepairActions(s, at, fixedRandom(0));
      entries = applied(entries, plan);
      return summary(plan);
    };
    assert.deepEqual(pass(T, {}, false), [starts(2)], "B dead: A yields, B starts");
    assert.deepEqual(pass(T + 30 * SEC, {}, false), [], "B's command ran, B still not Ready: A still waits");
    assert.deepEqual(
      pass(T + 45 * SEC, { 2: true }, true),
      [{ index: 2, states: [], effect: "success-command" }],
      "B recovers and succeeds; A has the turn, its watch goes on",
    );
    assert.deepEqual(
      pass(T + 61 * SEC, {}, true),
      [{ index: 1, states: ["processing/1/waiting", "processing/1/watching"], effect: "repair-command" }],
      "A's watch runs out: its next step runs",
    );
    assert.deepEqual(pass(T + 70 * SEC, { 1: true }, true), [{ index: 1, states: [], effect: "success-command" }], "A recovers and succeeds");
    assert.deepEqual(
      entries.map((e) => e.status),
      ["succeeded", "succeeded"],
    );
  });
});
