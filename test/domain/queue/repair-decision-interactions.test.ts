import { describe, it } from "node:test";
import type { ControlPlane } from "../../../src/domain/queue/control-planes.js";
import type { RepairConfig } from "../../../src/domain/queue/repair-config.js";
import type { RepairSnapshot } from "../../../src/domain/queue/repair-plan.js";
import {
  CONFIG,
  SEC,
  T,
  assertDecision,
  entry,
  machineHold,
  operation,
  snapshot,
  starts,
  stepCfg,
  watched,
  withHolds,
  type DecisionCase,
} from "./repair-decision-support.js";

// Holds, pacing and diagnostics were built apart; these cases pin how they meet in one decision.

const T0 = T - 500;
/** CONFIG's operation with a diagnostics command and a success command. */
const DIAGNOSED: RepairConfig = {
  ...CONFIG,
  repairProcedures: [
    {
      machineTypes: ["m"],
      repairOperations: [
        operation([stepCfg({ needDrain: true }), stepCfg({ watchSeconds: 0 })], { diagnosticsCommand: ["collect-sel"], successCommand: ["report"] }),
      ],
    },
  ],
};
/** Pacing by rack, every entry's machine in rack 3, after `successes` proven successes there (none: it allows 1 repair). */
const pacedByRack = (s: RepairSnapshot, successes = 0): RepairSnapshot => {
  const ok = (i: number) => ({ entryIndex: 100 + i, machineType: "m", rack: 3, status: "succeeded" as const, time: T - 3600 * SEC });
  return {
    ...s,
    pacing: { domains: ["rack"], racks: new Map(s.entries.map((e) => [e.address, 3])), finished: Array.from({ length: successes }, (_, i) => ok(i)) },
  };
};
const diagnosing = (index: number) => entry(index, { status: "processing", lastTransitionTime: T0 });
const runsDiagnostics = (index: number) => ({ index, states: ["processing/0/waiting"], effect: "diagnostics" as const });
const cp = (n: number, over: Partial<ControlPlane> = {}): ControlPlane => ({
  name: `cp${n}`,
  addresses: [`10.0.0.${n}`],
  ready: true,
  rebooting: false,
  ...over,
});
const HELD = /^held by alice: vendor swap$/;
const PACED = /^pacing: rack 3 allows 1 repair in progress/;
const FULL = /^max_concurrent_repairs \(1\) reached$/;

const CASES: DecisionCase[] = [
  // hold + diagnostics: diagnostics commits the entry to processing, so a held entry must not get that far.
  {
    name: "hold + diagnostics: a held machine's queued entry does not run its diagnostics command",
    snapshot: withHolds(snapshot([entry(1)], {}, { config: DIAGNOSED }), machineHold("10.0.0.1")),
    want: [],
    held: { 1: HELD },
  },
  {
    name: "hold + diagnostics: a held entry whose diagnostics command runs is left to finish it",
    snapshot: withHolds(snapshot([diagnosing(1)], { 1: { job: "diagnostics" } }, { config: DIAGNOSED }), machineHold("10.0.0.1")),
    want: [],
    held: { 1: HELD },
  },
  {
    name: "hold + diagnostics: after its diagnostics a held entry starts no drain",
    snapshot: withHolds(snapshot([diagnosing(1)], { 1: { nodename: "node1" } }, { config: DIAGNOSED }), machineHold("10.0.0.1")),
    want: [],
    held: { 1: HELD },
  },
  {
    name: "hold + diagnostics: a held entry running its diagnostics keeps its slot",
    snapshot: withHolds(snapshot([diagnosing(1), entry(2)], { 1: { job: "diagnostics" } }, { config: DIAGNOSED, max: 1 }), machineHold("10.0.0.1")),
    want: [],
    held: { 1: HELD, 2: /^max_concurrent_repairs \(1\) reached; entry 1 is held mid-repair and keeps its slot until its hold ends$/ },
  },
  {
    name: "hold + diagnostics: when the hold ends the entry runs its diagnostics first",
    snapshot: withHolds(snapshot([entry(1)], {}, { config: DIAGNOSED })),
    want: [runsDiagnostics(1)],
    held: {},
  },
  // pacing + diagnostics
  {
    name: "pacing + diagnostics: a queued entry pacing holds back does not run its diagnostics command",
    snapshot: pacedByRack(snapshot([watched(1), entry(2)], { 1: { job: "repair-command" } }, { config: DIAGNOSED, max: 5 })),
    want: [],
    held: { 2: PACED },
  },
  {
    name: "pacing + diagnostics: an entry running its diagnostics counts against its rack's allowance",
    snapshot: pacedByRack(snapshot([diagnosing(1), entry(2)], { 1: { job: "diagnostics" } }, { config: DIAGNOSED, max: 5 })),
    want: [],
    held: { 2: PACED },
  },
  {
    name: "pacing + diagnostics: starting the diagnostics takes the rack's one repair in the same pass",
    snapshot: pacedByRack(snapshot([entry(1), entry(2)], {}, { config: DIAGNOSED, max: 5 })),
    want: [runsDiagnostics(1)],
    held: { 2: PACED },
  },
  // diagnostics + max_concurrent_repairs
  {
    name: "diagnostics + max_concurrent_repairs: starting the diagnostics takes a slot in the same pass",
    snapshot: snapshot([entry(1), entry(2)], {}, { config: DIAGNOSED, max: 1 }),
    want: [runsDiagnostics(1)],
    held: { 2: FULL },
  },
  {
    name: "diagnostics + max_concurrent_repairs: an entry running its diagnostics takes a slot",
    snapshot: snapshot([diagnosing(1), entry(2)], { 1: { job: "diagnostics" } }, { config: DIAGNOSED, max: 1 }),
    want: [],
    held: { 2: FULL },
  },
  // hold + pacing: what pacingReport counts as in progress (every processing entry not waiting out a back-off) is what the gate counts.
  {
    name: "hold + pacing: a held processing entry counts against its rack's allowance",
    snapshot: pacedByRack(withHolds(snapshot([watched(1), entry(2)], {}, { max: 5 }), machineHold("10.0.0.1"))),
    want: [],
    held: { 1: HELD, 2: PACED },
  },
  {
    name: "hold + pacing: a held queued entry takes none of its rack's allowance",
    snapshot: pacedByRack(withHolds(snapshot([entry(1), entry(2)], {}, { max: 5 }), machineHold("10.0.0.1"))),
    want: [starts(2)],
    held: { 1: HELD },
  },
  {
    name: "hold + pacing: a processing control plane a control-plane rule holds (and keeps the turn) counts against its rack's allowance",
    snapshot: pacedByRack(snapshot([watched(1), entry(2)], {}, { max: 5, controlPlanes: [cp(1), cp(9, { rebooting: true })] })),
    want: [],
    held: { 1: /^control plane cp9 is being rebooted$/, 2: PACED },
  },
  {
    name: "back-off + pacing: an entry waiting out its drain back-off takes none of its rack's allowance",
    snapshot: pacedByRack(snapshot([entry(1, { status: "processing", drainBackoffCount: 1, drainBackoffExpire: T + 200 * SEC }), entry(2)], {}, { max: 5 })),
    want: [starts(2)],
    held: { 1: /drain back-off/ },
  },
  // back-off + max_concurrent_repairs: found by the simulator (seed 42, 1,000 machines): an entry back from its
  // back-off came first in index order, took a slot and cordoned its machine, and left a watching entry cordoned and
  // held, so three machines were disrupted under a limit of two.
  {
    name: "back-off + max_concurrent_repairs: an entry back from its drain back-off waits for a slot behind the entries that hold one",
    snapshot: snapshot(
      [
        entry(1, { status: "processing", drainBackoffCount: 1, lastTransitionTime: T - 400 * SEC, drainBackoffExpire: T - 50 * SEC }),
        watched(2, { lastTransitionTime: T - 10 * SEC }),
        watched(3, { lastTransitionTime: T - 10 * SEC }),
      ],
      { 2: { job: "repair-command" }, 3: { job: "repair-command" } },
      { max: 2 },
    ),
    want: [],
    held: { 1: /^max_concurrent_repairs \(2\) reached$/ },
  },
  {
    name: "back-off + max_concurrent_repairs: an entry back from its drain back-off still comes before queued entries",
    snapshot: snapshot(
      [entry(1, { status: "processing", drainBackoffCount: 1, lastTransitionTime: T - 400 * SEC, drainBackoffExpire: T - 50 * SEC }), entry(2)],
      { 1: { nodename: "node1" } },
      { max: 1 },
    ),
    want: [{ index: 1, states: ["processing/0/waiting", "processing/0/draining"], effect: "drain" }],
    held: { 2: FULL },
  },
  // between two steps + max_concurrent_repairs: found by the simulator (seeds 35 and 41 of the whole model): CKE walks
  // processing control planes first, so a control plane back from its back-off took the slot of a worker whose
  // command was running, and two machines were disrupted under a limit of one.
  {
    name: "back-off + control plane + max_concurrent_repairs: a control plane back from its drain back-off waits behind a worker whose command runs",
    snapshot: snapshot(
      [
        entry(1, { status: "processing", drainBackoffCount: 1, lastTransitionTime: T - 400 * SEC, drainBackoffExpire: T - 50 * SEC }),
        watched(2, { lastTransitionTime: T - 10 * SEC }),
      ],
      { 1: { nodename: "node1" }, 2: { job: "repair-command" } },
      { max: 1, controlPlanes: [cp(1)] },
    ),
    want: [],
    held: { 1: FULL },
  },
  {
    name: "between two steps + max_concurrent_repairs: an entry whose next step has not started waits behind one watching after its command",
    snapshot: snapshot(
      [entry(1, { status: "processing", step: 1, lastTransitionTime: T - 400 * SEC }), watched(2, { lastTransitionTime: T - 10 * SEC })],
      {},
      { max: 1 },
    ),
    want: [],
    held: { 1: FULL },
  },
  // hold + a healthy health check: a hold stops commands, never a success (CKE's health rule comes first); the
  // success command is a command on the machine, so it is skipped, and a note says so.
  {
    name: "hold + healthy: a held queued entry found healthy succeeds, its success command skipped",
    snapshot: withHolds(snapshot([entry(1)], { 1: { healthy: true } }, { config: DIAGNOSED }), machineHold("10.0.0.1")),
    want: [{ index: 1, states: ["queued/0/waiting"], effect: "success-command" }],
    held: {},
  },
  {
    name: "hold + healthy: without a success command a held entry found healthy succeeds as well",
    snapshot: withHolds(snapshot([entry(1)], { 1: { healthy: true } }), machineHold("10.0.0.1")),
    want: [{ index: 1, states: [], effect: "success-command" }],
    held: {},
  },
  {
    name: "hold + healthy: once the hold ends the healthy entry finishes",
    snapshot: withHolds(snapshot([entry(1)], { 1: { healthy: true } }, { config: DIAGNOSED })),
    want: [{ index: 1, states: [], effect: "success-command" }],
    held: {},
  },
  // failure + pacing: found by the simulator (seed 64): an entry failed (its operation gone) in the pass that started
  // another of its machine type on the allowance the failure had just reset to 1, so two were in progress.
  {
    name: "failure + pacing: an entry whose operation is gone resets its rack's allowance before a queued entry starts in the same pass",
    snapshot: pacedByRack(snapshot([watched(1), entry(2, { operation: "gone" }), entry(3)], { 1: { job: "repair-command" } }, { max: 5 }), 1),
    want: [{ index: 2, states: ["failed/0/waiting"], effect: "uncordon" }],
    held: { 3: /^pacing: rack 3 allows 1 repair in progress \(last failure: entry 2 at 2026-11-22T06:00:00.000Z\)$/ },
  },
  {
    name: "failure + pacing: an entry failing at the end of its last watch resets its rack's allowance before a queued entry starts in the same pass",
    snapshot: pacedByRack(snapshot([watched(1, { step: 1 }), watched(2), entry(3)], { 2: { job: "repair-command" } }, { max: 5 }), 2),
    want: [{ index: 1, states: ["failed/1/watching"], effect: "uncordon" }],
    held: { 3: /^pacing: rack 3 allows 1 repair in progress \(last failure: entry 1 at/ },
  },
  {
    // CKE's repairOps finishes a completed entry (RepairFinishOp) before counting the API server turn; the simulator's
    // one-control-plane-disrupted judges the finishing control plane's cordon by this rule (regression seed 9).
    name: "control planes + healthy: a control plane found healthy finishes and holds no turn, so the next control plane starts",
    snapshot: snapshot([watched(1), entry(2)], { 1: { healthy: true } }, { max: 3, controlPlanes: [cp(1), cp(2), cp(3)] }),
    want: [{ index: 1, states: [], effect: "success-command" }, starts(2)],
    held: {},
  },
  {
    name: "pacing + healthy: finishing a healthy entry is not paced",
    snapshot: pacedByRack(snapshot([watched(1), entry(2)], { 1: { job: "repair-command" }, 2: { healthy: true } }, { max: 5 })),
    want: [{ index: 2, states: [], effect: "success-command" }],
    held: {},
  },
];

describe("decideRepairActions: holds, pacing and diagnostics together", () => {
  for (const c of CASES) it(c.name, () => void assertDecision(c));
});
