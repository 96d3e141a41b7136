import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideIntake, type IntakeInput } from "../../../src/domain/intake/auto-repair-intake.js";
import type { MachineHold } from "../../../src/domain/holds/machine-holds.js";
import { recordedHolds, recordedMachines, recordedStandings, recordPoll, type PollRecord } from "../../../src/domain/replay/poll-record.js";
import type { NodeStanding, SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";
import { machine } from "../intake/intake-support.js";
import { entry } from "../queue/repair-decision-support.js";

const NOW = Date.parse("2026-11-23T12:00:00Z");

const hold = (address: string): MachineHold => ({ address, reason: "disk swap", setBy: "ops", setAt: NOW, until: null, source: "api" });

const input = (machines: SabakanMachine[], over: Partial<IntakeInput> = {}): IntakeInput => ({
  machines,
  entries: [],
  nodes: new Map(),
  constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 30, maximumUnhealthyMachinesPerRack: 0 },
  ...over,
});

/** What decideIntake decides, in the terms a replay compares: the enqueued addresses and each skip's kind. */
function fates(i: IntakeInput) {
  const d = decideIntake(i);
  return {
    enqueue: d.enqueue.map((e) => [e.serial, e.address, e.machineType, e.operation]),
    skipped: d.skipped.map((s) => [s.serial, s.kind, s.address, s.rack]),
    shortCircuit: d.shortCircuit,
  };
}

function replayed(record: PollRecord): IntakeInput {
  return {
    machines: recordedMachines(record),
    entries: record.queue.map((address, i) => entry(i + 1, { address })),
    nodes: recordedStandings(record),
    constraints: record.constraints,
    holds: recordedHolds(record),
  };
}

describe("recordPoll (what a sabakan poll's intake read, compactly)", () => {
  const cases: Array<{ name: string; input: IntakeInput }> = [
    {
      name: "plain unhealthy and unreachable machines of two types",
      input: input([machine("s1"), machine("s2", { state: "UNREACHABLE", bmcType: "iDRAC-9" })]),
    },
    {
      name: "a rebooting node and a machine out of the cluster, within the wait",
      input: input([machine("s1", { state: "UNREACHABLE", durationSeconds: 5 }), machine("s2", { state: "UNREACHABLE", durationSeconds: 5 })], {
        nodes: new Map<string, NodeStanding>([["10.0.0.1", "rebooting"]]),
      }),
    },
    { name: "a fractional duration just under the wait stays under it", input: input([machine("s1", { state: "UNREACHABLE", durationSeconds: 29.999 })]) },
    { name: "a duration exactly at the wait is past it", input: input([machine("s1", { state: "UNREACHABLE", durationSeconds: 30 })]) },
    {
      name: "a recently repaired machine (the queue's addresses)",
      input: input([machine("s1"), machine("s2")], { entries: [entry(1, { address: "10.0.0.2" })] }),
    },
    {
      name: "a held machine; holds of machines not in the answer are not kept",
      input: input([machine("s1"), machine("s2")], {
        holds: new Map([
          ["10.0.0.1", hold("10.0.0.1")],
          ["10.9.9.9", hold("10.9.9.9")],
        ]),
      }),
    },
    {
      name: "no address, a hostile address, a non-canonical one and a duplicate",
      input: input(
        [
          machine("s1", { ipv4: [] }),
          machine("s2", { ipv4: ["-rf"] }),
          machine("s3", { ipv4: ["::ffff:10.0.0.3"], state: "UNREACHABLE", durationSeconds: 1 }),
          machine("s4", { ipv4: ["10.0.0.3"] }),
        ],
        { nodes: new Map<string, NodeStanding>([["10.0.0.3", "node"]]) },
      ),
    },
    {
      name: "the per-rack limit",
      input: input([machine("s1", { rack: 1 }), machine("s2", { rack: 1 }), machine("s3", { rack: 2 })], {
        constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 1 },
      }),
    },
    {
      name: "the queue limit short-circuits",
      input: input([machine("s1"), machine("s2")], {
        entries: [entry(1, { address: "10.0.0.9" })],
        constraints: { maximumRepairQueueEntries: 2, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 },
      }),
    },
  ];
  for (const c of cases) {
    it(`decides the same from the record: ${c.name}`, () => {
      const record = recordPoll(c.input, decideIntake(c.input), NOW);
      const roundTripped = JSON.parse(JSON.stringify(record)) as PollRecord;
      assert.deepEqual(fates(replayed(roundTripped)), fates(c.input));
    });
  }

  it("records what the poll did: enqueued addresses, the short circuit, the queue and the constraints", () => {
    const i = input([machine("s1"), machine("s2")], { entries: [entry(1, { address: "10.0.0.9" })] });
    const record = recordPoll(i, decideIntake(i), NOW);
    assert.deepEqual(
      { time: record.time, queue: record.queue, enqueued: record.enqueued, shortCircuited: record.shortCircuited, constraints: record.constraints },
      { time: NOW, queue: ["10.0.0.9"], enqueued: ["10.0.0.1", "10.0.0.2"], shortCircuited: false, constraints: i.constraints },
    );
  });

  it("costs well under a megabyte for 10,000 answered machines, and a few hundred bytes for a healthy data center", () => {
    const many = Array.from({ length: 10_000 }, (_, n) =>
      machine(`SN${String(n).padStart(8, "0")}`, {
        rack: Math.floor(n / 29),
        ipv4: [`10.${Math.floor(n / 65536)}.${Math.floor(n / 256) % 256}.${n % 256}`],
        bmcType: n % 2 ? "IPMI-2.0" : "iDRAC-9",
        state: n % 3 ? "UNHEALTHY" : "UNREACHABLE",
        durationSeconds: 12345.678,
      }),
    );
    const big = input(many, { constraints: { maximumRepairQueueEntries: 5, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 } });
    const bytes = JSON.stringify(recordPoll(big, decideIntake(big), NOW)).length;
    assert.ok(bytes < 600_000, `10,000 machines cost ${bytes} bytes`);
    const healthy = JSON.stringify(recordPoll(input([]), decideIntake(input([])), NOW)).length;
    assert.ok(healthy < 400, `an empty answer costs ${healthy} bytes`);
  });
});
