import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairConfig } from "../../../src/domain/queue/repair-config.js";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { startEvidence, type RepairEvidence } from "../../../src/domain/proof/repair-evidence.js";
import type { RepairObservation } from "../../../src/domain/queue/repair-plan.js";
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

/** Type "m": operation "op" (two steps, watch 120 s then 0) requiring a new boot ID and a Ready node for 60 s. */
const PROOF_CONFIG: RepairConfig = {
  ...CONFIG,
  repairProcedures: [
    {
      machineTypes: ["m"],
      repairOperations: [
        operation([stepCfg({ watchSeconds: 120 }), stepCfg({ watchSeconds: 0 })], {
          successProof: { requires: ["boot_id_changed", "node_ready"], dwellSeconds: 60 },
        }),
      ],
    },
  ],
};
const ev = (over: Partial<RepairEvidence> = {}): RepairEvidence => ({ ...startEvidence(0, "boot-A"), ...over });
const dwelling = (since: number): RepairEvidence =>
  ev({ bootIdAfter: "boot-B", since: { health_check: since, boot_id_changed: since, node_ready: since }, dwellStartedAt: since, dwellStarts: 1 });
const watchingFor = (seconds: number, evidence?: RepairEvidence, over: Partial<RepairEntry> = {}) =>
  entry(1, { status: "processing", stepStatus: "watching", lastTransitionTime: T - seconds * SEC, ...(evidence && { evidence }), ...over });
const healthy = (bootId: string | null, nodeReady: boolean | null = true): Partial<RepairObservation> => ({
  healthy: true,
  proof: { nodeReady, bootId, sabakanState: null },
});
const proofSnapshot = (e: RepairEntry, o: Partial<RepairObservation>) => snapshot([e], { 1: o }, { config: PROOF_CONFIG });
/** Type "m": a first step watching 120 s, then a drain step; proof is sabakan's HEALTHY for 300 s. */
const SABAKAN_PROOF_CONFIG: RepairConfig = {
  ...CONFIG,
  repairProcedures: [
    {
      machineTypes: ["m"],
      repairOperations: [
        operation([stepCfg({ watchSeconds: 120 }), stepCfg({ needDrain: true })], { successProof: { requires: ["sabakan_healthy"], dwellSeconds: 300 } }),
      ],
    },
  ],
};
const sabakanDwell = (since: number): RepairEvidence =>
  ev({ bootIdAfter: "boot-B", since: { health_check: since, sabakan_healthy: since }, dwellStartedAt: since, dwellStarts: 1 });
const NOTE = "processing/0/watching";

const CASES: DecisionCase[] = [
  {
    name: "healthy but the boot ID did not change: no success command; the entry waits for boot_id_changed",
    snapshot: proofSnapshot(watchingFor(10, ev()), healthy("boot-A")),
    want: [{ index: 1, states: [NOTE], effect: "none" }],
    held: { 1: /^waiting for proof: boot_id_changed$/ },
  },
  {
    name: "every signal holds: the dwell starts, and the decision wakes at its end",
    snapshot: proofSnapshot(watchingFor(10, ev()), healthy("boot-B")),
    want: [{ index: 1, states: [NOTE], effect: "none" }],
    held: { 1: /^healthy: proving the repair for \d+s, until 2026-11-22T06:01:00\.500Z \(a relapse starts it again\)$/ },
    wakeAt: T + 60 * SEC,
  },
  {
    name: "the dwell is over: the success command runs, after the note with the final evidence",
    snapshot: proofSnapshot(watchingFor(70, dwelling(T - 60 * SEC)), healthy("boot-B")),
    want: [{ index: 1, states: [NOTE], effect: "success-command" }],
    held: {},
  },
  {
    name: "the watch expires during the dwell: it does not end while the dwell that would prove the entry runs",
    snapshot: proofSnapshot(watchingFor(121, dwelling(T - 30 * SEC)), healthy("boot-B")),
    want: [],
    held: { 1: /^healthy: proving the repair for 60s, until 2026-11-22T06:00:30\.500Z/ },
    wakeAt: T + 30 * SEC,
  },
  {
    name: "sabakan cannot be asked during a dwell that holds an expired watch open: an unknown signal is not a relapse, the watch stays open and step 2 does not drain",
    snapshot: snapshot(
      [watchingFor(200, sabakanDwell(T - 150 * SEC), { nodename: "n1" })],
      { 1: { nodename: "n1", healthy: true, proof: { nodeReady: true, bootId: "boot-B", sabakanState: null, unknown: ["sabakan_healthy"] } } },
      { config: SABAKAN_PROOF_CONFIG },
    ),
    want: [],
    held: { 1: /^waiting for proof: sabakan_healthy unknown \(its source did not answer\)$/ },
  },
  {
    name: "a queued entry healthy but for its Node NotReady is not taken as healthy: it starts, and the boot ID is recorded before its command",
    snapshot: proofSnapshot(entry(1), healthy("boot-A", false)),
    want: [{ index: 1, states: [NOTE, NOTE], effect: "repair-command" }],
    held: {},
  },
  {
    name: "a drain that completed starts the repair command: the boot ID is recorded in the same write",
    snapshot: snapshot(
      [entry(1, { status: "processing", stepStatus: "draining", nodename: "n1", lastTransitionTime: T - 10 * SEC })],
      { 1: { nodename: "n1", drainJobDone: true, drainCompleted: true, healthy: false, proof: { nodeReady: false, bootId: "boot-A", sabakanState: null } } },
      {
        config: {
          ...PROOF_CONFIG,
          repairProcedures: [
            {
              machineTypes: ["m"],
              repairOperations: [operation([stepCfg({ needDrain: true })], { successProof: { requires: ["boot_id_changed"], dwellSeconds: 0 } })],
            },
          ],
        },
      },
    ),
    want: [{ index: 1, states: [NOTE, NOTE], effect: "repair-command" }],
    held: {},
  },
  {
    name: "a queued entry healthy by every signal a repair does not give: it succeeds at once as CKE's does, its evidence saying nothing was repaired",
    snapshot: proofSnapshot(entry(1), healthy("boot-A")),
    want: [{ index: 1, states: ["queued/0/waiting"], effect: "success-command" }],
    held: {},
  },
  {
    name: "the same queued healthy entry on a held machine succeeds as well: a hold stops commands, never a success",
    snapshot: withHolds(proofSnapshot(entry(1), healthy("boot-A")), machineHold("10.0.0.1")),
    want: [{ index: 1, states: ["queued/0/waiting"], effect: "success-command" }],
    held: {},
  },
  {
    name: "proven while the machine is held: it succeeds, with the final evidence",
    snapshot: withHolds(proofSnapshot(watchingFor(70, dwelling(T - 60 * SEC)), healthy("boot-B")), machineHold("10.0.0.1")),
    want: [{ index: 1, states: [NOTE], effect: "success-command" }],
    held: {},
  },
  {
    name: "the same entry of an operation without success_requires succeeds at once (CKE)",
    snapshot: snapshot([watchingFor(10, ev())], { 1: healthy("boot-A") }),
    want: [{ index: 1, states: [], effect: "success-command" }],
    held: {},
  },
];

describe("decideRepairActions: proof of repair", () => {
  for (const c of CASES) it(c.name, () => void assertDecision(c));

  it("the boot ID recorded before the command is the one observed in the pass that starts it", () => {
    const plan = decideRepairActions(
      proofSnapshot(entry(1), { healthy: false, proof: { nodeReady: true, bootId: "boot-A", sabakanState: null } }),
      T,
      fixedRandom(0),
    );
    const last = plan.actions[0]?.transitions.at(-1);
    assert.deepEqual(last?.after.evidence, startEvidence(0, "boot-A"));
  });

  it("a relapse during the dwell is written as a note that ends the dwell", () => {
    const plan = decideRepairActions(proofSnapshot(watchingFor(40, dwelling(T - 30 * SEC)), healthy("boot-B", false)), T, fixedRandom(0));
    const note = plan.actions[0]?.transitions[0];
    assert.match(note?.reason ?? "", /relapse \(node_ready no longer holds\)/);
    assert.equal(note?.after.evidence?.dwellStartedAt, null);
    assert.deepEqual([plan.held.get(1)?.kind, plan.held.get(1)?.message], ["PROOF", "waiting for proof: node_ready"]);
  });
});
