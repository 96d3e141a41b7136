import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ControlPlane } from "../../../src/domain/queue/control-planes.js";
import type { RepairConfig } from "../../../src/domain/queue/repair-config.js";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { startEvidence, type RepairEvidence } from "../../../src/domain/proof/repair-evidence.js";
import type { ObservedProof } from "../../../src/domain/proof/repair-evidence.js";
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
  stepCfg,
  withHolds,
  type DecisionCase,
} from "./repair-decision-support.js";

// CKE's health rule (op/status.go health-checks every unfinished entry; server/strategy.go finishes a healthy one
// before anything but a deletion): whatever the step, step status and the rules that hold the entry.

const SUCCEEDS = [{ index: 1, states: [], effect: "success-command" as const }];
/** Step 1 drains and watches 60 s; step 2 (plain, watch 0) is the next destructive step. */
const backedOff = (over: Partial<RepairEntry> = {}) =>
  entry(1, { status: "processing", step: 1, drainBackoffCount: 1, drainBackoffExpire: T + 200 * SEC, lastTransitionTime: T - 100 * SEC, ...over });
const cp = (n: number, over: Partial<ControlPlane> = {}): ControlPlane => ({
  name: `cp${n}`,
  addresses: [`10.0.0.${n}`],
  ready: true,
  rebooting: false,
  ...over,
});
const WITH_SUCCESS_COMMAND: RepairConfig = {
  ...CONFIG,
  repairProcedures: [
    { machineTypes: ["m"], repairOperations: [operation([stepCfg({ needDrain: true }), stepCfg({ watchSeconds: 0 })], { successCommand: ["report"] })] },
  ],
};

const CKE_CASES: DecisionCase[] = [
  { name: "queued: succeeds without a repair command", snapshot: snapshot([entry(1)], { 1: { healthy: true } }), want: SUCCEEDS, held: {} },
  {
    name: "waiting for its next step: succeeds, the step never starts",
    snapshot: snapshot([entry(1, { status: "processing", step: 1 })], { 1: { healthy: true } }),
    want: SUCCEEDS,
    held: {},
  },
  {
    name: "draining (the eviction job done, pods still leaving): succeeds, the repair command never runs",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "draining", nodename: "n1", lastTransitionTime: T - 10 * SEC })], {
      1: { nodename: "n1", drainJobDone: true, drainCompleted: true, healthy: true },
    }),
    want: SUCCEEDS,
    held: {},
  },
  { name: "in drain back-off: succeeds, the drain is never retried", snapshot: snapshot([backedOff()], { 1: { healthy: true } }), want: SUCCEEDS, held: {} },
  {
    name: "watching: succeeds",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC })], { 1: { healthy: true } }),
    want: SUCCEEDS,
    held: {},
  },
  {
    name: "watching, the watch just over: succeeds, step 2 never starts",
    snapshot: snapshot([entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 61 * SEC })], { 1: { healthy: true } }),
    want: SUCCEEDS,
    held: {},
  },
  {
    name: "draining with the queue disabled: succeeds rather than abandoning the drain",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "n1", lastTransitionTime: T - 10 * SEC })],
      { 1: { nodename: "n1", healthy: true } },
      { enabled: false },
    ),
    want: SUCCEEDS,
    held: {},
  },
  {
    name: "waiting for the control-plane turn: succeeds",
    snapshot: snapshot([entry(1, { status: "processing", step: 1 })], { 1: { healthy: true } }, { controlPlanes: [cp(1), cp(2, { ready: false }), cp(3)] }),
    want: SUCCEEDS,
    held: {},
  },
  {
    name: "with no slot free: succeeds beyond max_concurrent_repairs",
    snapshot: snapshot(
      [entry(2, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC }), entry(1)],
      { 1: { healthy: true } },
      { max: 1 },
    ),
    want: SUCCEEDS,
    held: {},
  },
  {
    name: "on a held machine, in drain back-off: succeeds (a hold stops commands, never a success)",
    snapshot: withHolds(snapshot([backedOff()], { 1: { healthy: true } }), machineHold("10.0.0.1")),
    want: SUCCEEDS,
    held: {},
  },
  {
    name: "on a held machine with a success command: succeeds, the command skipped and the history saying so",
    snapshot: withHolds(
      snapshot(
        [entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC })],
        { 1: { healthy: true } },
        { config: WITH_SUCCESS_COMMAND },
      ),
      machineHold("10.0.0.1"),
    ),
    want: [{ index: 1, states: ["processing/0/watching"], effect: "success-command" }],
    held: {},
  },
  {
    name: "a deletion still comes first",
    snapshot: snapshot([backedOff({ deleted: true })], { 1: { healthy: true } }),
    want: [{ index: 1, states: [], effect: "dequeue" }],
    held: {},
  },
];

describe("decideRepairActions: CKE's health rule at every step", () => {
  for (const c of CKE_CASES) it(c.name, () => void assertDecision(c));

  it("a held machine's success runs no success command, and the note names the hold", () => {
    const s = withHolds(
      snapshot(
        [entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC })],
        { 1: { healthy: true } },
        { config: WITH_SUCCESS_COMMAND },
      ),
      machineHold("10.0.0.1"),
    );
    const action = decideRepairActions(s, T, fixedRandom(0)).actions[0];
    assert.equal(action?.effect.kind === "success-command" ? action.effect.operation.successCommand : "no success", null);
    assert.match(
      action?.transitions[0]?.reason ?? "",
      /^healthy while the machine is held \(held by alice: vendor swap\): the entry succeeds, but its success command is not run$/,
    );
  });

  it("without the hold the same entry runs its success command", () => {
    const s = snapshot(
      [entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC })],
      { 1: { healthy: true } },
      { config: WITH_SUCCESS_COMMAND },
    );
    const action = decideRepairActions(s, T, fixedRandom(0)).actions[0];
    assert.deepEqual(action?.effect.kind === "success-command" ? action.effect.operation.successCommand : "no success", ["report"]);
  });
});

/** Proof of repair: step 1 (watch 30 s, plain), step 2 (drain, watch 0); a new boot ID and a Ready node for 60 s. */
const PROOF_CONFIG: RepairConfig = {
  ...CONFIG,
  repairProcedures: [
    {
      machineTypes: ["m"],
      repairOperations: [
        operation([stepCfg({ watchSeconds: 30 }), stepCfg({ needDrain: true, watchSeconds: 0 })], {
          successProof: { requires: ["boot_id_changed", "node_ready"], dwellSeconds: 60 },
        }),
      ],
    },
  ],
};
const ev = (over: Partial<RepairEvidence> = {}): RepairEvidence => ({ ...startEvidence(0, "boot-A"), ...over });
const dwellingSince = (since: number, over: Partial<RepairEvidence> = {}) =>
  ev({ bootIdAfter: "boot-B", since: { health_check: since, boot_id_changed: since, node_ready: since }, dwellStartedAt: since, dwellStarts: 1, ...over });
const recovered = (over: Partial<ObservedProof> = {}) => ({
  healthy: true,
  nodename: "n1",
  proof: { nodeReady: true, bootId: "boot-B", sabakanState: null, ...over },
});
const proving = (e: RepairEntry, o: ReturnType<typeof recovered>, holdIt = false) => {
  const s = snapshot([{ ...e, nodename: "n1" }], { 1: o }, { config: PROOF_CONFIG });
  return holdIt ? withHolds(s, machineHold("10.0.0.1")) : s;
};
const NOTE1 = "processing/1/waiting";
const DWELL = /^healthy: proving the repair for 60s/;

const PROOF_CASES: DecisionCase[] = [
  {
    name: "late recovery proven by step 1's evidence while step 2's drain backs off: succeeds",
    snapshot: proving(backedOff({ evidence: dwellingSince(T - 60 * SEC) }), recovered()),
    want: [{ index: 1, states: [NOTE1], effect: "success-command" }],
    held: {},
  },
  {
    name: "late recovery seen when step 2's back-off expires: the dwell starts and the drain does not",
    snapshot: proving(backedOff({ drainBackoffExpire: T - SEC, evidence: ev() }), recovered()),
    want: [{ index: 1, states: [NOTE1], effect: "none" }],
    held: { 1: DWELL },
    wakeAt: T + 60 * SEC,
  },
  {
    name: "step 2's drain completes while the dwell runs: its repair command does not run",
    snapshot: proving(
      entry(1, { status: "processing", step: 1, stepStatus: "draining", lastTransitionTime: T - 10 * SEC, evidence: dwellingSince(T - 20 * SEC) }),
      { ...recovered(), drainJobDone: true, drainCompleted: true } as ReturnType<typeof recovered>,
    ),
    want: [],
    held: { 1: DWELL },
  },
  {
    name: "step 1's watch ends during the dwell: it does not end, no step 2",
    snapshot: proving(
      entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 31 * SEC, evidence: dwellingSince(T - 20 * SEC) }),
      recovered(),
    ),
    want: [],
    held: { 1: DWELL },
    wakeAt: T + 40 * SEC,
  },
  {
    name: "a dwell does not stop a drain past its eviction timeout from backing off (and uncordoning)",
    snapshot: proving(
      entry(1, { status: "processing", step: 1, stepStatus: "draining", lastTransitionTime: T - 601 * SEC, evidence: dwellingSince(T - 20 * SEC) }),
      recovered(),
    ),
    want: [{ index: 1, states: [NOTE1], effect: "abandon-drain" }],
    held: {},
  },
  {
    name: "a machine that is not a Kubernetes node is proven by its health check alone: succeeds",
    snapshot: snapshot(
      [
        entry(1, {
          status: "processing",
          stepStatus: "watching",
          lastTransitionTime: T - 20 * SEC,
          evidence: ev({ bootIdBefore: null, since: { health_check: T - 60 * SEC }, dwellStartedAt: T - 60 * SEC, dwellStarts: 1 }),
        }),
      ],
      { 1: { healthy: true, proof: { nodeReady: null, bootId: null, sabakanState: null } } },
      { config: PROOF_CONFIG },
    ),
    want: [{ index: 1, states: ["processing/0/watching"], effect: "success-command" }],
    held: {},
  },
  {
    name: "proven on a held machine in drain back-off: succeeds",
    snapshot: proving(backedOff({ evidence: dwellingSince(T - 60 * SEC) }), recovered(), true),
    want: [{ index: 1, states: [NOTE1], effect: "success-command" }],
    held: {},
  },
  {
    name: "a relapse during step 2's back-off: the drain is retried when it expires, as before",
    snapshot: proving(backedOff({ drainBackoffExpire: T - SEC, evidence: dwellingSince(T - 20 * SEC) }), recovered({ nodeReady: false })),
    want: [{ index: 1, states: [NOTE1, "processing/1/draining"], effect: "drain" }],
    held: {},
  },
];

describe("decideRepairActions: proof of repair at every step", () => {
  for (const c of PROOF_CASES) it(c.name, () => void assertDecision(c));

  it("the non-node machine's history says node_ready and boot_id_changed do not apply", () => {
    const s = snapshot(
      [entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 20 * SEC, evidence: ev({ bootIdBefore: null }) })],
      { 1: { healthy: true, proof: { nodeReady: null, bootId: null, sabakanState: null } } },
      { config: PROOF_CONFIG },
    );
    const plan = decideRepairActions(s, T, fixedRandom(0));
    assert.match(
      plan.actions[0]?.transitions[0]?.reason ?? "",
      /^step 1: proof of repair: dwell started; .* \(boot_id_changed, node_ready do not apply: the machine is not a Kubernetes node\)$/,
    );
    assert.match(plan.held.get(1)?.message ?? "", DWELL);
  });
});
