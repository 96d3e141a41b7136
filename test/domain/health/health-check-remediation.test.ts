import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FinishedRepair } from "../../../src/domain/queue/finished-repair.js";
import type { TargetEvaluation } from "../../../src/domain/health/health-check-evaluation.js";
import { decideRemediation, remediationEntryReason, type RemediationContext } from "../../../src/domain/health/health-check-remediation.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../../src/domain/queue/repair-config.js";
import { evaluation, target, WORKERS_CHECK } from "./health-check-support.js";
import { entry } from "../queue/repair-decision-support.js";

const CHECK = WORKERS_CHECK;
const types = (node: string) => (node === "n9" ? null : node === "n7" ? "qemu" : node === "n6" ? "switch" : "IPMI-2.0");
const operation = (name: string) => ({
  operation: name,
  repairSteps: [],
  healthCheckCommand: ["check"],
  commandTimeoutSeconds: 30,
  successCommand: null,
  successCommandTimeout: 30,
});
// IPMI-2.0 has the check's operation; qemu's first procedure lacks it (a later one that has it is never tried);
// switch has no procedure at all.
const REPAIR: RepairConfig = {
  ...EMPTY_REPAIR_CONFIG,
  repairProcedures: [
    { machineTypes: ["IPMI-2.0"], repairOperations: [operation("unreachable"), operation("node-not-ready")] },
    { machineTypes: ["qemu"], repairOperations: [operation("unreachable")] },
    { machineTypes: ["qemu"], repairOperations: [operation("node-not-ready")] },
  ],
};
const context = (patch: Partial<RemediationContext> = {}): RemediationContext => ({
  entries: [],
  maximumRepairQueueEntries: 10,
  repair: REPAIR,
  machineTypeOf: types,
  ...patch,
});

describe("decideRemediation", () => {
  it("enqueues every unhealthy target with the check's operation and source, and not pending ones", () => {
    const d = decideRemediation(
      CHECK,
      evaluation([target("n1", "unhealthy"), target("n2", "pending"), target("n3", "unhealthy"), target("n4", "healthy")]),
      context(),
    );
    assert.deepEqual(d.enqueue, [
      {
        address: "10.0.0.1",
        machineType: "IPMI-2.0",
        operation: "node-not-ready",
        serial: null,
        source: "health-check:workers",
        reason: "enqueued by health check workers: node n1 has an unhealthy condition",
      },
      {
        address: "10.0.0.3",
        machineType: "IPMI-2.0",
        operation: "node-not-ready",
        serial: null,
        source: "health-check:workers",
        reason: "enqueued by health check workers: node n3 has an unhealthy condition",
      },
    ]);
    assert.deepEqual(d.held, []);
  });

  it("enqueues nothing through a closed gate, and says why for each unhealthy target", () => {
    const d = decideRemediation(CHECK, evaluation([target("n1", "unhealthy"), target("n2", "pending")], false), context());
    assert.deepEqual(d, { enqueue: [], held: [{ node: "n1", reason: "remediation short-circuited: total: 5, unhealthy: 3, maxUnhealthy: 40%" }] });
  });

  it("does not enqueue an address that has a persisting entry, finished or deleted included", () => {
    const d = decideRemediation(
      CHECK,
      evaluation([target("n1", "unhealthy"), target("n2", "unhealthy")]),
      context({ entries: [entry(1, { address: "10.0.0.1", status: "succeeded", deleted: true })] }),
    );
    assert.deepEqual(
      d.enqueue.map((e) => e.address),
      ["10.0.0.2"],
    );
  });

  it("is all or nothing at maximum-repair-queue-entries", () => {
    const d = decideRemediation(
      CHECK,
      evaluation([target("n1", "unhealthy"), target("n2", "unhealthy")]),
      context({ entries: [entry(7, { address: "10.9.9.9" })], maximumRepairQueueEntries: 2 }),
    );
    assert.deepEqual(d.enqueue, []);
    assert.match(d.held[0]?.reason ?? "", /too many repair requests \(1 in the queue \+ 2 > maximum-repair-queue-entries 2\)/);
  });

  it("holds a target whose machine type cannot be found, or that has no address", () => {
    const d = decideRemediation(CHECK, evaluation([target("n9", "unhealthy"), target("n8", "unhealthy", null)]), context());
    assert.deepEqual(d.held, [
      { node: "n9", reason: "sabakan has no machine with address 10.0.0.9" },
      { node: "n8", reason: "the node has no InternalIP" },
    ]);
  });

  const held: Array<{ name: string; target: TargetEvaluation; reason: string }> = [
    {
      name: "a type whose first procedure lacks the operation (later ones are not tried)",
      target: target("n7", "unhealthy"),
      reason: 'not enqueued, the entry would fail at once: repair operation "node-not-ready" not found for machine type "qemu"',
    },
    {
      name: "a type without a procedure",
      target: target("n6", "unhealthy"),
      reason: 'not enqueued, the entry would fail at once: repair procedure not found for machine type "switch"',
    },
    {
      name: "a first InternalIP that is not an address",
      target: { ...target("n5", "unhealthy", null), addressProblem: 'the node\'s first InternalIP is not an address: invalid IP address: "-rf"' },
      reason: 'the node\'s first InternalIP is not an address: invalid IP address: "-rf"',
    },
  ];
  for (const c of held) {
    it(`holds, never enqueues: ${c.name}`, () => {
      const d = decideRemediation(CHECK, evaluation([c.target, target("n1", "unhealthy")]), context());
      assert.deepEqual(
        d.enqueue.map((e) => e.address),
        ["10.0.0.1"],
      );
      assert.deepEqual(d.held, [{ node: c.target.node, reason: c.reason }]);
    });
  }

  it("a held target does not count against maximum-repair-queue-entries", () => {
    const d = decideRemediation(CHECK, evaluation([target("n7", "unhealthy"), target("n1", "unhealthy")]), context({ maximumRepairQueueEntries: 1 }));
    assert.deepEqual(
      d.enqueue.map((e) => e.address),
      ["10.0.0.1"],
    );
  });

  it("holds a held machine with its hold's description and enqueues the others", () => {
    const holds = new Map([["10.0.0.1", { address: "10.0.0.1", reason: "vendor swap", setBy: "alice", setAt: 0, until: null, source: "api" as const }]]);
    const d = decideRemediation(CHECK, evaluation([target("n1", "unhealthy"), target("n3", "unhealthy")]), context({ holds }));
    assert.deepEqual(
      d.enqueue.map((e) => e.address),
      ["10.0.0.3"],
    );
    assert.deepEqual(d.held, [{ node: "n1", reason: "held by alice: vendor swap" }]);
  });
});

describe("decideRemediation: repair.escalation", () => {
  const NOW = 1_000_000_000;
  const withRetire: RepairConfig = {
    ...REPAIR,
    repairProcedures: [
      { machineTypes: ["IPMI-2.0"], repairOperations: [operation("node-not-ready"), operation("retire")] },
      { machineTypes: ["qemu"], repairOperations: [operation("node-not-ready")] },
    ],
  };
  const repaired = (address: string, n: number): FinishedRepair[] =>
    Array.from({ length: n }, (_, i) => ({
      sequence: i + 1,
      entryIndex: 100 + i,
      address,
      machineType: "IPMI-2.0",
      operation: "node-not-ready",
      source: "health-check:workers",
      createdAt: NOW - (i + 1) * 60_000,
      finishedAt: NOW,
      status: "failed",
      proof: null,
    }));
  const escalating = (operation: string | null, finished: FinishedRepair[]) =>
    context({ repair: withRetire, escalation: { config: { maxRepairs: 2, windowSeconds: 600, operation }, finished, now: NOW } });
  const cases: Array<{ name: string; targets: TargetEvaluation[]; context: RemediationContext; enqueue: string[]; held: string[]; holds: string[] }> = [
    {
      name: "below max_repairs: the check's operation",
      targets: [target("n1", "unhealthy")],
      context: escalating("retire", repaired("10.0.0.1", 1)),
      enqueue: ["10.0.0.1 node-not-ready"],
      held: [],
      holds: [],
    },
    {
      name: "a repeat offender: the escalation operation",
      targets: [target("n1", "unhealthy")],
      context: escalating("retire", repaired("10.0.0.1", 2)),
      enqueue: ["10.0.0.1 retire"],
      held: [],
      holds: [],
    },
    {
      name: "a repeat offender whose type lacks the operation: held, saying why",
      targets: [target("n7", "unhealthy")],
      context: escalating("retire", repaired("10.0.0.7", 2)),
      enqueue: [],
      held: [
        'n7: escalated: repaired 2 times in 10m: enqueued retire instead, but not enqueued, the entry would fail at once: repair operation "retire" not found for machine type "qemu"',
      ],
      holds: [],
    },
    {
      name: "without an operation: held and a hold asked for",
      targets: [target("n1", "unhealthy"), target("n2", "unhealthy")],
      context: escalating(null, repaired("10.0.0.1", 2)),
      enqueue: ["10.0.0.2 node-not-ready"],
      held: ["n1: escalated: repaired 2 times in 10m: held"],
      holds: ["10.0.0.1 repaired 2 times in 10m"],
    },
    {
      name: "released after the repairs that held it: the check's operation, not held again by the same repairs",
      targets: [target("n1", "unhealthy")],
      context: context({
        repair: withRetire,
        escalation: {
          config: { maxRepairs: 2, windowSeconds: 600, operation: null },
          finished: repaired("10.0.0.1", 2),
          releases: new Map([["10.0.0.1", NOW - 1000]]),
          now: NOW,
        },
      }),
      enqueue: ["10.0.0.1 node-not-ready"],
      held: [],
      holds: [],
    },
    {
      name: "short-circuited by maximum-repair-queue-entries: no repeat offender held by a pass that acts on nothing",
      targets: [target("n1", "unhealthy"), target("n2", "unhealthy"), target("n3", "unhealthy")],
      context: { ...escalating(null, repaired("10.0.0.1", 2)), maximumRepairQueueEntries: 1 },
      enqueue: [],
      held: [
        "n1: too many repair requests (0 in the queue + 3 > maximum-repair-queue-entries 1)",
        "n2: too many repair requests (0 in the queue + 3 > maximum-repair-queue-entries 1)",
        "n3: too many repair requests (0 in the queue + 3 > maximum-repair-queue-entries 1)",
      ],
      holds: [],
    },
    {
      name: "repeat offenders alone beyond maximum-repair-queue-entries: the pass is cut short and holds nobody (CKE's Repairer counts them and returns nothing)",
      targets: [target("n1", "unhealthy"), target("n2", "unhealthy")],
      context: { ...escalating(null, [...repaired("10.0.0.1", 2), ...repaired("10.0.0.2", 2)]), maximumRepairQueueEntries: 1 },
      enqueue: [],
      held: [
        "n1: too many repair requests (0 in the queue + 2 > maximum-repair-queue-entries 1)",
        "n2: too many repair requests (0 in the queue + 2 > maximum-repair-queue-entries 1)",
      ],
      holds: [],
    },
    {
      name: "one node to enqueue and one to hold, over maximum-repair-queue-entries together: neither",
      targets: [target("n1", "unhealthy"), target("n2", "unhealthy")],
      context: { ...escalating(null, repaired("10.0.0.1", 2)), maximumRepairQueueEntries: 1 },
      enqueue: [],
      held: [
        "n1: too many repair requests (0 in the queue + 2 > maximum-repair-queue-entries 1)",
        "n2: too many repair requests (0 in the queue + 2 > maximum-repair-queue-entries 1)",
      ],
      holds: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decideRemediation(CHECK, evaluation(c.targets), c.context);
      assert.deepEqual(
        d.enqueue.map((e) => `${e.address} ${e.operation}`),
        c.enqueue,
      );
      assert.deepEqual(
        d.held.map((h) => `${h.node}: ${h.reason}`),
        c.held,
      );
      assert.deepEqual(
        (d.escalationHolds ?? []).map((h) => `${h.address} ${h.reason}`),
        c.holds,
      );
    });
  }
});

describe("decideRemediation: maximum-unhealthy-machines-per-rack, as the sabakan trigger applies it", () => {
  // n1-n3 in rack 1, n4 in rack 2; n5's machine is unknown to sabakan (no rack).
  const racks = new Map([
    ["10.0.0.1", 1],
    ["10.0.0.2", 1],
    ["10.0.0.3", 1],
    ["10.0.0.4", 2],
  ]);
  const rackLimit = (maximum: number) => ({ maximum, rackOf: (address: string) => racks.get(address) ?? null });
  const RACK_1 = "rack 1: 3 unhealthy machines, likely an infrastructure failure";
  const cases: Array<{ name: string; targets: TargetEvaluation[]; patch: Partial<RemediationContext>; enqueued: string[]; held: Array<[string, string]> }> = [
    {
      name: "a rack with more unhealthy targets than the limit: none of them is enqueued, and another rack's is",
      targets: ["n1", "n2", "n3", "n4"].map((n) => target(n, "unhealthy")),
      patch: { rackLimit: rackLimit(2) },
      enqueued: ["10.0.0.4"],
      held: [
        ["n1", RACK_1],
        ["n2", RACK_1],
        ["n3", RACK_1],
      ],
    },
    {
      name: "a rack at the limit is enqueued whole",
      targets: ["n1", "n2", "n3"].map((n) => target(n, "unhealthy")),
      patch: { rackLimit: rackLimit(3) },
      enqueued: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
      held: [],
    },
    {
      name: "0 turns the limit off",
      targets: ["n1", "n2", "n3"].map((n) => target(n, "unhealthy")),
      patch: { rackLimit: rackLimit(0) },
      enqueued: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
      held: [],
    },
    {
      name: "pending targets are not unhealthy: they do not count",
      targets: [target("n1", "unhealthy"), target("n2", "pending"), target("n3", "pending")],
      patch: { rackLimit: rackLimit(1) },
      enqueued: ["10.0.0.1"],
      held: [],
    },
    {
      name: "a machine with a persisting entry counts toward its rack, as every unhealthy machine sabakan lists counts for the trigger",
      targets: [target("n1", "unhealthy"), target("n2", "unhealthy")],
      patch: { rackLimit: rackLimit(1), entries: [entry(1, { address: "10.0.0.1" })] },
      enqueued: [],
      held: [["n2", "rack 1: 2 unhealthy machines, likely an infrastructure failure"]],
    },
    {
      name: "a target whose rack sabakan does not name is neither counted nor held",
      targets: [target("n1", "unhealthy"), target("n5", "unhealthy"), target("n6", "unhealthy", "10.0.0.16")],
      patch: { rackLimit: rackLimit(1), machineTypeOf: () => "IPMI-2.0" },
      enqueued: ["10.0.0.1", "10.0.0.5", "10.0.0.16"],
      held: [],
    },
  ];
  for (const c of cases)
    it(c.name, () => {
      const d = decideRemediation(CHECK, evaluation(c.targets), context(c.patch));
      assert.deepEqual(
        d.enqueue.map((e) => e.address),
        c.enqueued,
      );
      assert.deepEqual(
        d.held.map((h) => [h.node, h.reason]),
        c.held,
      );
    });
});

describe('the history reason of an entry a health check enqueues (never "undefined")', () => {
  const rule = { type: "Ready", status: "Unknown", timeoutSeconds: 300 };
  const cases = [
    {
      name: "the failed rule",
      target: { node: "n1", rule },
      escalated: null,
      want: "enqueued by health check workers: node n1 has Ready=Unknown for more than 300 s",
    },
    {
      name: "escalated",
      target: { node: "n1", rule },
      escalated: "repaired 3 times in 7d",
      want: "enqueued by health check workers: node n1 has Ready=Unknown for more than 300 s; escalated: repaired 3 times in 7d",
    },
    {
      name: "no rule known",
      target: { node: "n2", rule: null },
      escalated: null,
      want: "enqueued by health check workers: node n2 has an unhealthy condition",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(remediationEntryReason("workers", c.target, c.escalated), c.want);
    });
  }

  it("every entry of a decision has its reason, none reading undefined", () => {
    const targets = [target("n1", "unhealthy"), target("n3", "unhealthy"), target("n7", "unhealthy"), { ...target("n5", "unhealthy"), rule }];
    const d = decideRemediation(CHECK, evaluation(targets), context());
    assert.ok(d.enqueue.length >= 3, `only ${d.enqueue.length} enqueued`);
    for (const e of d.enqueue) assert.match(e.reason, /^enqueued by health check workers: node n\d has (?!.*undefined)/);
  });
});
