import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StatusModel, type Entry, type Outcome } from "../../scripts/status-page/model.js";

const entry = (index: string, address: string, status: string, deleted = false): Entry => ({
  index,
  address,
  nodename: `node-${address}`,
  machineType: "qemu",
  operation: "unreachable",
  status,
  step: 0,
  stepStatus: "WAITING",
  stepCount: 2,
  deleted,
  createdAt: "2026-11-22T05:00:00Z",
  lastTransitionTime: null,
  failure: null,
  waitingFor: null,
});

const outcome = (sequence: string): Outcome => ({
  sequence,
  time: "2026-11-22T05:00:00Z",
  trigger: "schedule",
  machinesSeen: 1,
  enqueued: [],
  skipped: [],
  skippedTotal: 0,
  skippedByKind: [],
  shortCircuit: null,
  error: null,
});

function modelWith(entries: readonly Entry[]): StatusModel {
  const model = new StatusModel();
  model.replace({ machines: [], entries: [...entries], holds: [], outcomes: [] });
  return model;
}

describe("the status page's model", () => {
  const byAddressCases: ReadonlyArray<{ name: string; entries: Entry[]; shown: Record<string, string> }> = [
    {
      name: "one entry per address",
      entries: [entry("1", "10.0.0.1", "QUEUED"), entry("2", "10.0.0.2", "FAILED")],
      shown: { "10.0.0.1": "1", "10.0.0.2": "2" },
    },
    {
      name: "the unfinished entry wins over a later finished one",
      entries: [entry("1", "10.0.0.1", "PROCESSING"), entry("5", "10.0.0.1", "SUCCEEDED")],
      shown: { "10.0.0.1": "1" },
    },
    {
      name: "among finished entries the latest wins",
      entries: [entry("3", "10.0.0.1", "SUCCEEDED"), entry("2", "10.0.0.1", "FAILED")],
      shown: { "10.0.0.1": "3" },
    },
    { name: "a deleted finished entry is gone from the grid", entries: [entry("1", "10.0.0.1", "FAILED", true)], shown: {} },
    { name: "a deleted unfinished entry shows until the runner dequeues it", entries: [entry("1", "10.0.0.1", "QUEUED", true)], shown: { "10.0.0.1": "1" } },
  ];
  for (const c of byAddressCases) {
    it(`entryByAddress: ${c.name}`, () => {
      const shown = Object.fromEntries([...modelWith(c.entries).entryByAddress()].map(([address, e]) => [address, e.index]));
      assert.deepEqual(shown, c.shown);
    });
  }

  it("repairWaits replaces every wait: an unfinished entry not in the list waits for nothing", () => {
    const model = modelWith([entry("1", "10.0.0.1", "QUEUED"), entry("2", "10.0.0.2", "QUEUED")]);
    model.waits([{ index: "1", waitingFor: { kind: "CONCURRENCY", message: "3 repairs run", until: null } }]);
    model.waits([{ index: "2", waitingFor: { kind: "HOLD", message: "held", until: null } }]);
    assert.deepEqual(
      [...model.entries.values()].map((e) => [e.index, e.waitingFor?.kind ?? null]),
      [
        ["1", null],
        ["2", "HOLD"],
      ],
    );
  });

  const holdCases: ReadonlyArray<{ name: string; kinds: string[]; held: boolean }> = [
    { name: "SET holds", kinds: ["SET"], held: true },
    { name: "RELEASED releases", kinds: ["SET", "RELEASED"], held: false },
    { name: "EXPIRED releases", kinds: ["SET", "EXPIRED"], held: false },
  ];
  for (const c of holdCases) {
    it(`machineHoldEvents: ${c.name}`, () => {
      const model = new StatusModel();
      for (const kind of c.kinds) model.hold(kind, { address: "10.0.0.1", reason: "r", setBy: "a", until: null, source: "API" });
      assert.equal(model.holds.has("10.0.0.1"), c.held);
    });
  }

  it("keeps the latest outcomes, newest first, without duplicates", () => {
    const model = new StatusModel();
    model.replace({ machines: [], entries: [], holds: [], outcomes: ["3", "1", "2"].map(outcome) });
    for (const sequence of ["4", "4", "5", "6", "7"]) model.outcome(outcome(sequence));
    assert.deepEqual(
      model.outcomes.map((o) => o.sequence),
      ["7", "6", "5", "4", "3"],
    );
  });

  it("a state change of a machine sabakan never listed is ignored", () => {
    const model = new StatusModel();
    model.replace({ machines: [{ serial: "a", rack: 0, indexInRack: 1, address: "10.0.0.1", state: "HEALTHY" }], entries: [], holds: [], outcomes: [] });
    model.machineState("a", "UNREACHABLE");
    model.machineState("unknown", "UNHEALTHY");
    assert.deepEqual(
      [...model.machines.values()].map((m) => [m.serial, m.state]),
      [["a", "UNREACHABLE"]],
    );
  });
});
