import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideIntake, intakeEntryReason, type IntakeInput } from "../../../src/domain/intake/auto-repair-intake.js";
import type { FinishedRepair } from "../../../src/domain/queue/finished-repair.js";
import type { MachineHold } from "../../../src/domain/holds/machine-holds.js";
import { EMPTY_REPAIR_CONFIG } from "../../../src/domain/queue/repair-config.js";
import type { NodeStanding, SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";
import { legacySkipKind, SKIP_KINDS } from "../../../src/domain/intake/skip-kinds.js";
import { machine } from "./intake-support.js";
import { entry } from "../queue/repair-decision-support.js";

const limits = (over: Partial<IntakeInput["constraints"]> = {}) => ({
  maximumRepairQueueEntries: 10,
  waitSecondsToRepairRebooting: 0,
  maximumUnhealthyMachinesPerRack: 0,
  ...over,
});

function decide(machines: SabakanMachine[], over: Partial<IntakeInput> = {}) {
  return decideIntake({ machines, entries: [], nodes: new Map(), constraints: limits(), ...over });
}

const enqueued = (d: ReturnType<typeof decide>) => d.enqueue.map((e) => e.serial);
const reasons = (d: ReturnType<typeof decide>) => Object.fromEntries(d.skipped.map((s) => [s.serial, s.reason]));
const kinds = (d: ReturnType<typeof decide>) => Object.fromEntries(d.skipped.map((s) => [s.serial, s.kind]));

describe("decideIntake (sabakan-triggered repair)", () => {
  it("builds the entry from the machine: first IPv4, BMC type, lower-case state, serial, source", () => {
    const d = decide([machine("s1", { ipv4: ["10.1.0.1", "10.2.0.1"], bmcType: "iDRAC-9", state: "UNREACHABLE" })]);
    assert.deepEqual(d.enqueue, [
      {
        address: "10.1.0.1",
        machineType: "iDRAC-9",
        operation: "unreachable",
        serial: "s1",
        source: "sabakan",
        reason: "enqueued by sabakan-triggered repair: machine s1 is UNREACHABLE (for 3600 s)",
      },
    ]);
    assert.equal(d.machinesSeen, 1);
    assert.equal(d.shortCircuit, null);
  });

  it("operation is the lower-case state: unhealthy", () => {
    assert.equal(decide([machine("s1")]).enqueue[0]?.operation, "unhealthy");
  });

  it("uses the first IPv4 only: an entry for the second address does not count as recent", () => {
    const d = decide([machine("s1", { ipv4: ["10.1.0.1", "10.2.0.1"] })], { entries: [entry(1, { address: "10.2.0.1" })] });
    assert.deepEqual(enqueued(d), ["s1"]);
  });

  it("skips a machine without an IPv4 address", () => {
    assert.deepEqual(reasons(decide([machine("s1", { ipv4: [] })])), { s1: "no address" });
  });

  const hostileCases: Array<[string, string, string]> = [
    ["an option", "-rf", 'invalid IP address: "-rf" in spec.ipv4[0]'],
    ["an option with a value", "--output=/etc/x", 'invalid IP address: "--output=/etc/x" in spec.ipv4[0]'],
    ["control characters (escaped in the reason)", "10.0.0.1\u001b[2J\r", 'invalid IP address: "10.0.0.1\\x1b[2J\\x0d" in spec.ipv4[0]'],
    ["an empty string", "", 'invalid IP address: "" in spec.ipv4[0]'],
    ["a hostname", "node1.example", 'invalid IP address: "node1.example" in spec.ipv4[0]'],
  ];
  for (const [name, ipv4, reason] of hostileCases) {
    it(`skips a machine whose first IPv4 is not an IP address, without recording it raw: ${name}`, () => {
      const d = decide([machine("s1", { ipv4: [ipv4, "10.0.0.9"] }), machine("s2")]);
      assert.deepEqual(enqueued(d), ["s2"]);
      assert.deepEqual(d.skipped, [{ serial: "s1", address: null, state: "UNHEALTHY", reason, kind: "invalid_address", rack: 0 }]);
    });
  }

  it("enqueues an IPv4-mapped IPv6 first address as its IPv4 address", () => {
    assert.deepEqual(
      decide([machine("s1", { ipv4: ["::ffff:10.0.0.3"] })]).enqueue.map((e) => e.address),
      ["10.0.0.3"],
    );
  });

  it("an IPv4-mapped IPv6 first address counts as recent when an entry has its IPv4 address", () => {
    const d = decide([machine("s1", { ipv4: ["::ffff:10.0.0.3"] })], { entries: [entry(1, { address: "10.0.0.3" })] });
    assert.deepEqual(d.skipped, [{ serial: "s1", address: "10.0.0.3", state: "UNHEALTHY", reason: "recently repaired", kind: "recently_repaired", rack: 0 }]);
  });

  it("two spellings of one address in one answer make one entry", () => {
    const d = decide([machine("s1", { ipv4: ["10.0.0.3"] }), machine("s2", { ipv4: ["::ffff:10.0.0.3"] })]);
    assert.deepEqual(enqueued(d), ["s1"]);
    assert.equal(reasons(d)["s2"], "another machine with address 10.0.0.3 is already enqueued this round");
  });

  it("finds the Node standing of an IPv4-mapped IPv6 address under its IPv4 address", () => {
    const nodes = new Map<string, NodeStanding>([["10.0.0.3", "rebooting"]]);
    const d = decide([machine("s1", { ipv4: ["::ffff:10.0.0.3"], state: "UNREACHABLE", durationSeconds: 10 })], {
      nodes,
      constraints: limits({ waitSecondsToRepairRebooting: 60 }),
    });
    assert.deepEqual(reasons(d), { s1: "rebooting" });
  });

  const recentCases: Array<[string, Partial<ReturnType<typeof entry>>]> = [
    ["a queued entry", {}],
    ["a processing entry", { status: "processing" }],
    ["a succeeded entry", { status: "succeeded" }],
    ["a failed entry", { status: "failed" }],
    ["an entry marked deleted but not yet dequeued", { deleted: true, status: "failed" }],
    ["an entry for another operation", { operation: "unreachable" }],
  ];
  for (const [name, over] of recentCases) {
    it(`skips a machine with ${name} as recently repaired`, () => {
      const d = decide([machine("s1")], { entries: [entry(7, { address: "10.0.0.1", ...over })] });
      assert.deepEqual(reasons(d), { s1: "recently repaired" });
      assert.deepEqual(d.enqueue, []);
    });
  }

  const waitCases: Array<[string, Partial<SabakanMachine>, NodeStanding | undefined, string | null]> = [
    ["UNREACHABLE briefly, not a node: may be rebooting", { state: "UNREACHABLE", durationSeconds: 10 }, undefined, "out of cluster, may be rebooting"],
    ["UNREACHABLE briefly, a node CKE is rebooting", { state: "UNREACHABLE", durationSeconds: 10 }, "rebooting", "rebooting"],
    ["UNREACHABLE briefly, a node not rebooting: enqueued", { state: "UNREACHABLE", durationSeconds: 10 }, "node", null],
    ["UNREACHABLE just under the wait: skipped", { state: "UNREACHABLE", durationSeconds: 599.999 }, undefined, "out of cluster, may be rebooting"],
    ["UNREACHABLE exactly the wait: enqueued (strict <)", { state: "UNREACHABLE", durationSeconds: 600 }, "rebooting", null],
    ["UNREACHABLE longer than the wait: enqueued", { state: "UNREACHABLE", durationSeconds: 1.2e6 }, undefined, null],
    ["UNHEALTHY briefly and not a node: the wait is only for UNREACHABLE", { state: "UNHEALTHY", durationSeconds: 1 }, undefined, null],
  ];
  for (const [name, over, standing, reason] of waitCases) {
    it(name, () => {
      const nodes = new Map<string, NodeStanding>(standing ? [["10.0.0.1", standing]] : []);
      const d = decide([machine("s1", over)], { nodes, constraints: limits({ waitSecondsToRepairRebooting: 600 }) });
      assert.deepEqual(reasons(d), reason === null ? {} : { s1: reason });
      assert.deepEqual(kinds(d), reason === null ? {} : { s1: standing === "rebooting" ? "rebooting" : "out_of_cluster" });
      assert.deepEqual(enqueued(d), reason === null ? ["s1"] : []);
    });
  }

  it("enqueues all when persisting + candidates equals the limit", () => {
    const d = decide([machine("s1"), machine("s2")], {
      entries: [entry(1, { address: "10.9.0.1" }), entry(2, { address: "10.9.0.2" })],
      constraints: limits({ maximumRepairQueueEntries: 4 }),
    });
    assert.deepEqual(enqueued(d), ["s1", "s2"]);
  });

  it("enqueues nothing when persisting + candidates exceed the limit, and says so", () => {
    const entries = [entry(1, { address: "10.9.0.1", status: "succeeded" }), entry(2, { address: "10.9.0.2", deleted: true })];
    const d = decide([machine("s1"), machine("s2"), machine("s3", { ipv4: [] })], { entries, constraints: limits({ maximumRepairQueueEntries: 3 }) });
    assert.deepEqual(d.enqueue, []);
    assert.deepEqual(d.shortCircuit, { existingEntries: 2, candidates: 2, limit: 3 }, "finished and deleted-but-not-dequeued entries count");
    assert.deepEqual(reasons(d), { s1: "too many repair requests", s2: "too many repair requests", s3: "no address" });
    assert.deepEqual(kinds(d), { s1: "queue_limit", s2: "queue_limit", s3: "no_address" });
  });

  it("enqueues nothing with the default constraints (maximum-repair-queue-entries 0)", () => {
    const d = decide([machine("s1")], { constraints: limits({ maximumRepairQueueEntries: 0 }) });
    assert.deepEqual(d.enqueue, []);
    assert.deepEqual(d.shortCircuit, { existingEntries: 0, candidates: 1, limit: 0 });
  });

  it("reports no short-circuit when there is no candidate, whatever the queue holds", () => {
    const d = decide([machine("s1", { ipv4: [] })], { entries: [entry(1), entry(2)], constraints: limits({ maximumRepairQueueEntries: 0 }) });
    assert.equal(d.shortCircuit, null);
  });

  it("keeps nothing from a rack with more unhealthy machines than the per-rack limit", () => {
    const machines = [
      machine("s1", { rack: 3 }),
      machine("s2", { rack: 3 }),
      machine("s3", { rack: 3 }),
      machine("s4", { rack: 4 }),
      machine("s5", { rack: 4 }),
    ];
    const d = decide(machines, { constraints: limits({ maximumUnhealthyMachinesPerRack: 2 }) });
    assert.deepEqual(enqueued(d), ["s4", "s5"], "rack 4 has exactly the limit");
    assert.equal(reasons(d)["s1"], "rack 3: 3 unhealthy machines, likely an infrastructure failure");
    assert.deepEqual(
      d.skipped.map((s) => [s.serial, s.kind, s.rack]),
      [
        ["s1", "rack_limit", 3],
        ["s2", "rack_limit", 3],
        ["s3", "rack_limit", 3],
      ],
    );
    assert.equal(d.shortCircuit, null);
  });

  it("applies no per-rack limit when it is 0", () => {
    const machines = Array.from({ length: 6 }, (_, i) => machine(`s${i + 1}`, { rack: 1 }));
    assert.equal(decide(machines).enqueue.length, 6);
  });

  it("never enqueues two entries for one address in one round", () => {
    const d = decide([machine("s1", { ipv4: ["10.5.0.1"] }), machine("s2", { ipv4: ["10.5.0.1"] })]);
    assert.deepEqual(enqueued(d), ["s1"]);
    assert.match(reasons(d)["s2"] ?? "", /already enqueued this round/);
  });

  it("keeps sabakan's order and reports skipped machines by serial", () => {
    const d = decide([machine("a2", { ipv4: [] }), machine("a1"), machine("a3")]);
    assert.deepEqual(enqueued(d), ["a1", "a3"]);
    assert.deepEqual(
      d.skipped.map((s) => s.serial),
      ["a2"],
    );
  });

  it("gives every skip a kind, and the kind the reason's wording reads as in records kept before kinds were", () => {
    const nodes = new Map<string, NodeStanding>([["10.0.0.2", "rebooting"]]);
    const round = [
      machine("s1", { rack: 1, ipv4: [] }),
      machine("s2", { rack: 2, state: "UNREACHABLE", durationSeconds: 1 }),
      machine("s3", { rack: 3, state: "UNREACHABLE", durationSeconds: 1 }),
      machine("s4", { rack: 4, ipv4: ["-rf"] }),
      machine("s5", { rack: 5 }),
      machine("s6", { rack: 6, ipv4: ["10.0.0.7"] }),
      machine("s7", { rack: 7 }),
      machine("s8", { rack: 9 }),
      machine("s9", { rack: 9 }),
    ];
    const d = decide(round, {
      nodes,
      entries: [entry(1, { address: "10.0.0.5" })],
      constraints: limits({ waitSecondsToRepairRebooting: 60, maximumUnhealthyMachinesPerRack: 1, maximumRepairQueueEntries: 1 }),
    });
    assert.deepEqual(kinds(d), {
      s1: "no_address",
      s2: "rebooting",
      s3: "out_of_cluster",
      s4: "invalid_address",
      s5: "recently_repaired",
      s6: "queue_limit",
      s7: "duplicate_address",
      s8: "rack_limit",
      s9: "rack_limit",
    });
    // `held` and `escalated` came after kinds were kept: no record without a kind has them.
    assert.deepEqual(
      new Set(d.skipped.map((s) => s.kind)),
      new Set(SKIP_KINDS.filter((k) => k !== "held" && k !== "escalated")),
      "every kind before holds is made",
    );
    for (const s of d.skipped) assert.equal(legacySkipKind(s.reason), s.kind, s.reason);
  });
});

describe("decideIntake: machine holds", () => {
  const held = (address: string, until: number | null = null): [string, MachineHold] => [
    address,
    { address, reason: "vendor swap", setBy: "alice", setAt: 0, until, source: "api" },
  ];
  const cases: Array<{
    name: string;
    machines: SabakanMachine[];
    over?: Partial<IntakeInput>;
    enqueued: string[];
    kinds: Record<string, string>;
    reasons?: Record<string, string>;
  }> = [
    { name: "no holds: every machine is enqueued", machines: [machine("s1"), machine("s2")], over: { holds: new Map() }, enqueued: ["s1", "s2"], kinds: {} },
    {
      name: "a held machine is skipped as held, with who, why and until when",
      machines: [machine("s1"), machine("s2")],
      over: { holds: new Map([held("10.0.0.1", Date.UTC(2026, 10, 23, 13))]) },
      enqueued: ["s2"],
      kinds: { s1: "held" },
      reasons: { s1: "held by alice: vendor swap until 2026-11-23T13:00:00.000Z" },
    },
    {
      name: "the hold matches the canonical address",
      machines: [machine("s1", { ipv4: ["::ffff:10.0.0.1"] })],
      over: { holds: new Map([held("10.0.0.1")]) },
      enqueued: [],
      kinds: { s1: "held" },
    },
    {
      name: "a machine with an entry is recently repaired, held or not",
      machines: [machine("s1")],
      over: { holds: new Map([held("10.0.0.1")]), entries: [entry(1)] },
      enqueued: [],
      kinds: { s1: "recently_repaired" },
    },
    {
      name: "a held machine is no candidate for maximum-repair-queue-entries",
      machines: [machine("s1"), machine("s2")],
      over: { holds: new Map([held("10.0.0.1")]), constraints: limits({ maximumRepairQueueEntries: 1 }) },
      enqueued: ["s2"],
      kinds: { s1: "held" },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decide(c.machines, c.over);
      assert.deepEqual(enqueued(d), c.enqueued);
      assert.deepEqual(kinds(d), c.kinds);
      if (c.reasons) assert.deepEqual(reasons(d), c.reasons);
    });
  }
});

describe("decideIntake: repair.escalation", () => {
  const NOW = 1_000_000_000;
  const op = (operation: string) => ({
    operation,
    repairSteps: [],
    healthCheckCommand: ["check"],
    commandTimeoutSeconds: 30,
    successCommand: null,
    successCommandTimeout: 30,
  });
  const repair = {
    ...EMPTY_REPAIR_CONFIG,
    repairProcedures: [
      { machineTypes: ["IPMI-2.0"], repairOperations: [op("unhealthy"), op("retire")] },
      { machineTypes: ["qemu"], repairOperations: [op("unhealthy")] },
    ],
  };
  const repaired = (address: string, n: number): FinishedRepair[] =>
    Array.from({ length: n }, (_, i) => ({
      sequence: i + 1,
      entryIndex: 100 + i,
      address,
      machineType: "IPMI-2.0",
      operation: "unhealthy",
      source: "sabakan",
      createdAt: NOW - (i + 1) * 60_000,
      finishedAt: NOW,
      status: "succeeded",
      proof: null,
    }));
  const escalation = (operation: string | null, finished: FinishedRepair[]): Partial<IntakeInput> => ({
    escalation: { config: { maxRepairs: 2, windowSeconds: 3600, operation }, finished, now: NOW, repair },
  });
  const cases: Array<{
    name: string;
    machines: SabakanMachine[];
    over: Partial<IntakeInput>;
    enqueue: Array<[string | null, string]>;
    kinds: Record<string, string>;
    holds?: string[];
    reason?: [string, RegExp];
  }> = [
    {
      name: "a machine repaired less than max_repairs times: its own operation",
      machines: [machine("s1")],
      over: escalation("retire", repaired("10.0.0.1", 1)),
      enqueue: [["s1", "unhealthy"]],
      kinds: {},
    },
    {
      name: "a repeat offender gets the escalation operation, and the outcome says escalated",
      machines: [machine("s1"), machine("s2")],
      over: escalation("retire", repaired("10.0.0.1", 2)),
      enqueue: [
        ["s1", "retire"],
        ["s2", "unhealthy"],
      ],
      kinds: { s1: "escalated" },
      reason: ["s1", /^repaired 2 times in 1h: enqueued retire instead$/],
    },
    {
      name: "a repeat offender whose type has no such operation is skipped, saying why",
      machines: [machine("s1", { bmcType: "qemu" })],
      over: escalation("retire", repaired("10.0.0.1", 2)),
      enqueue: [],
      kinds: { s1: "escalated" },
      reason: ["s1", /^repaired 2 times in 1h: enqueued retire instead, but not enqueued: repair operation "retire" not found for machine type "qemu"/],
    },
    {
      name: "without an operation: not enqueued, a hold asked for",
      machines: [machine("s1")],
      over: escalation(null, repaired("10.0.0.1", 3)),
      enqueue: [],
      kinds: { s1: "escalated" },
      holds: ["10.0.0.1 repaired 3 times in 1h"],
    },
    {
      name: "short-circuited by maximum-repair-queue-entries: only queue_limit, no escalation told twice",
      machines: [machine("s1"), machine("s2")],
      over: { ...escalation("retire", repaired("10.0.0.1", 2)), constraints: limits({ maximumRepairQueueEntries: 1 }) },
      enqueue: [],
      kinds: { s1: "queue_limit", s2: "queue_limit" },
    },
    {
      name: "short-circuited by maximum-repair-queue-entries: no repeat offender held by a round that acts on nothing",
      machines: [machine("s1"), machine("s2"), machine("s3")],
      over: { ...escalation(null, repaired("10.0.0.1", 2)), constraints: limits({ maximumRepairQueueEntries: 1 }) },
      enqueue: [],
      kinds: { s1: "queue_limit", s2: "queue_limit", s3: "queue_limit" },
      holds: [],
    },
    {
      name: "repeat offenders alone beyond maximum-repair-queue-entries: the round is cut short and holds nobody (CKE's Repairer counts them and returns nothing)",
      machines: [machine("s1"), machine("s2")],
      over: { ...escalation(null, [...repaired("10.0.0.1", 2), ...repaired("10.0.0.2", 2)]), constraints: limits({ maximumRepairQueueEntries: 1 }) },
      enqueue: [],
      kinds: { s1: "queue_limit", s2: "queue_limit" },
      holds: [],
    },
    {
      name: "one machine to enqueue and one to hold, over maximum-repair-queue-entries together: neither",
      machines: [machine("s1"), machine("s2")],
      over: { ...escalation(null, repaired("10.0.0.1", 2)), constraints: limits({ maximumRepairQueueEntries: 1 }) },
      enqueue: [],
      kinds: { s1: "queue_limit", s2: "queue_limit" },
      holds: [],
    },
    {
      name: "one machine to enqueue and one to hold, within maximum-repair-queue-entries together: both",
      machines: [machine("s1"), machine("s2")],
      over: { ...escalation(null, repaired("10.0.0.1", 2)), constraints: limits({ maximumRepairQueueEntries: 2 }) },
      enqueue: [["s2", "unhealthy"]],
      kinds: { s1: "escalated" },
      holds: ["10.0.0.1 repaired 2 times in 1h"],
    },
    {
      name: "released after the repairs that held it: enqueued with its own operation, not held again by the same repairs",
      machines: [machine("s1")],
      over: {
        escalation: {
          config: { maxRepairs: 2, windowSeconds: 3600, operation: null },
          finished: repaired("10.0.0.1", 3),
          releases: new Map([["10.0.0.1", NOW - 1000]]),
          now: NOW,
          repair,
        },
      },
      enqueue: [["s1", "unhealthy"]],
      kinds: {},
      holds: [],
    },
    {
      name: "a held machine is held, not escalated",
      machines: [machine("s1")],
      over: {
        ...escalation(null, repaired("10.0.0.1", 3)),
        holds: new Map([["10.0.0.1", { address: "10.0.0.1", reason: "x", setBy: "alice", setAt: 0, until: null, source: "api" as const }]]),
      },
      enqueue: [],
      kinds: { s1: "held" },
      holds: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const d = decide(c.machines, c.over);
      assert.deepEqual(
        d.enqueue.map((e) => [e.serial, e.operation]),
        c.enqueue,
      );
      assert.deepEqual(kinds(d), c.kinds);
      assert.deepEqual(
        d.escalationHolds.map((h) => `${h.address} ${h.reason}`),
        c.holds ?? [],
      );
      if (c.reason) assert.match(reasons(d)[c.reason[0]] ?? "", c.reason[1]);
    });
  }
});

describe('the history reason of an entry the trigger enqueues (never "undefined")', () => {
  const cases = [
    {
      name: "the machine's state and for how long",
      machine: machine("s1", { state: "UNHEALTHY", durationSeconds: 90.4 }),
      escalated: null,
      want: "enqueued by sabakan-triggered repair: machine s1 is UNHEALTHY (for 90 s)",
    },
    {
      name: "escalated",
      machine: machine("s2", { state: "UNREACHABLE", durationSeconds: 0 }),
      escalated: "repaired 2 times in 1h: enqueued retire instead",
      want: "enqueued by sabakan-triggered repair: machine s2 is UNREACHABLE (for 0 s); escalated: repaired 2 times in 1h: enqueued retire instead",
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(intakeEntryReason(c.machine, c.escalated), c.want));

  it("every entry of a decision has its machine's reason, none reading undefined", () => {
    const d = decideIntake({
      machines: [machine("s1"), machine("s2", { state: "UNREACHABLE" }), machine("s3", { ipv4: ["::ffff:10.0.0.3"] })],
      entries: [],
      nodes: new Map(),
      constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 },
    });
    assert.deepEqual(
      d.enqueue.map((e) => [e.serial, /^enqueued by sabakan-triggered repair: machine s\d is (UNHEALTHY|UNREACHABLE) \(for \d+ s\)$/.test(e.reason)]),
      [
        ["s1", true],
        ["s2", true],
        ["s3", true],
      ],
    );
  });
});
