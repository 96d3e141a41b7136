import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../src/domain/queue/repair-entry.js";
import type { SabakanMachine } from "../../src/domain/sabakan/sabakan-machine.js";
import { PacingLedger, pacingInputOf } from "../../src/runner/pacing-ledger.js";
import { MAX_REMEMBERED_MACHINES, RackDirectory } from "../../src/runner/rack-directory.js";
import type { RepairChange, StoreCommit } from "../../src/store/store-port.js";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { SEC, T, entry } from "../domain/queue/repair-decision-support.js";

const change = (after: RepairEntry, previous: RepairEntry | null, time: number): RepairChange => ({
  entry: after,
  previous,
  record: {
    sequence: 1,
    entryIndex: after.index,
    time,
    kind: "transition",
    reason: "",
    detail: null,
    status: after.status,
    step: after.step,
    stepStatus: after.stepStatus,
    deleted: after.deleted,
    actor: "kintsugi",
  },
});
const commit = (...entries: RepairChange[]): StoreCommit => ({ entries, outcome: null, generation: null, settings: [] });
const outcomesOf = (ledger: PacingLedger) => ledger.input(["machine_type"], [], () => null).finished.map((o) => `${o.entryIndex}:${o.status}`);
const machine = (ipv4: string[], rack: number): SabakanMachine => ({
  serial: `s-${ipv4[0]}`,
  rack,
  indexInRack: 1,
  role: "cs",
  ipv4,
  bmcType: "IPMI-2.0",
  state: "UNHEALTHY",
  durationSeconds: 0,
  stateSince: T,
  registerDate: T,
  retireDate: T,
  labels: {},
});

describe("PacingLedger", () => {
  it("seeds the finished entries of the queue in the order they finished, and skips the unfinished", () => {
    const ledger = new PacingLedger();
    ledger.seed([
      entry(1, { status: "failed", lastTransitionTime: T }),
      entry(2, { status: "succeeded", lastTransitionTime: T - 10 * SEC }),
      entry(3, { status: "processing" }),
    ]);
    assert.deepEqual(outcomesOf(ledger), ["2:succeeded", "1:failed"]);
  });

  it("seeds the kept finished-repair records too, each entry once, by finish time, and no outcome for one deleted before finishing", () => {
    const ledger = new PacingLedger();
    const record = (entryIndex: number, status: "succeeded" | "failed" | "deleted", finishedAt: number) => ({
      sequence: entryIndex * 10,
      entryIndex,
      address: `10.0.0.${entryIndex}`,
      machineType: "m",
      operation: "op",
      source: "sabakan",
      createdAt: T - 60 * SEC,
      finishedAt,
      status,
      proof: null,
    });
    ledger.seed(
      [entry(1, { status: "failed", lastTransitionTime: T })],
      [record(1, "failed", T), record(2, "succeeded", T - 5 * SEC), record(3, "deleted", T - 4 * SEC), record(4, "failed", T + SEC)],
    );
    assert.deepEqual(outcomesOf(ledger), ["2:succeeded", "1:failed", "4:failed"]);
    ledger.seed([], [record(5, "succeeded", T - 100 * SEC), record(4, "failed", T + SEC)]);
    assert.deepEqual(outcomesOf(ledger), ["2:succeeded", "1:failed", "4:failed", "5:succeeded"], "a later seed adds only what is new");
  });

  it("records an entry when a commit finishes it, once, at its last transition time", () => {
    const ledger = new PacingLedger();
    const running = entry(4, { status: "processing" });
    const done = { ...running, status: "succeeded" as const, lastTransitionTime: T + SEC };
    ledger.record(commit(change(running, entry(4), T)));
    ledger.record(commit(change(done, running, T + SEC + 300)));
    // A later write to a finished entry (a deletion request) is not a second outcome.
    ledger.record(commit(change({ ...done, deleted: true }, done, T + 2 * SEC)));
    const finished = ledger.input(["machine_type"], [], () => null).finished;
    assert.deepEqual(
      finished.map((o) => [o.entryIndex, o.status, o.time]),
      [[4, "succeeded", T + SEC]],
    );
  });

  it("keeps whether each success's required proof of repair was given: proven, unproven, or none required", () => {
    const ledger = new PacingLedger();
    const evidence = { step: 0, bootIdBefore: "a", bootIdAfter: "b", since: {}, dwellStartedAt: T, dwellStarts: 1, provenAt: T };
    ledger.seed([
      entry(1, { status: "succeeded", lastTransitionTime: T, evidence }),
      entry(2, { status: "succeeded", lastTransitionTime: T + 1, evidence: { ...evidence, provenAt: null } }),
      entry(3, { status: "succeeded", lastTransitionTime: T + 2, step: 1, evidence }),
      entry(4, { status: "succeeded", lastTransitionTime: T + 3 }),
    ]);
    const proofs = ledger.input(["machine_type"], [], () => null).finished.map((o) => [o.entryIndex, o.proof ?? "none"]);
    assert.deepEqual(
      proofs,
      [
        [1, "proven"],
        [2, "unproven"],
        [3, "proven"],
        [4, "none"],
      ],
      "the evidence since the first repair command counts, whichever step proved it",
    );
  });

  it("seeds each kept record's proof outcome, so an unproven success read after a restart still does not count as proven", () => {
    const ledger = new PacingLedger();
    const record = (entryIndex: number, proof: "proven" | "unproven" | null) => ({
      sequence: entryIndex * 10,
      entryIndex,
      address: `10.0.0.${entryIndex}`,
      machineType: "m",
      operation: "op",
      source: "sabakan",
      createdAt: T - 60 * SEC,
      finishedAt: T + entryIndex,
      status: "succeeded" as const,
      proof,
    });
    ledger.seed([], [record(1, "proven"), record(2, "unproven"), record(3, null)]);
    const proofs = ledger.input(["machine_type"], [], () => null).finished.map((o) => [o.entryIndex, o.proof ?? "none"]);
    assert.deepEqual(proofs, [
      [1, "proven"],
      [2, "unproven"],
      [3, "none"],
    ]);
  });

  it("keeps only the newest outcomes", () => {
    const ledger = new PacingLedger(2);
    for (const i of [1, 2, 3]) ledger.record(commit(change(entry(i, { status: "failed" }), entry(i), T + i)));
    assert.deepEqual(outcomesOf(ledger), ["2:failed", "3:failed"]);
  });

  it("reads racks at the time of the pass, for outcomes and entries", () => {
    const ledger = new PacingLedger();
    ledger.seed([entry(1, { status: "failed" })]);
    const racks = new RackDirectory();
    racks.learn([machine(["10.0.0.1", "10.0.0.2"], 3)]);
    const input = ledger.input(["rack"], [entry(2), entry(3)], (a) => racks.rackOf(a));
    assert.equal(input.finished[0]?.rack, 3);
    assert.deepEqual([...input.racks], [["10.0.0.2", 3]]);
  });

  it("is off without repair.pacing, or without a ledger", () => {
    const pacing = { ledger: new PacingLedger(), racks: new RackDirectory() };
    assert.equal(pacingInputOf({ repair: EMPTY_REPAIR_CONFIG, pacing }, []), null);
    assert.equal(pacingInputOf({ repair: { ...EMPTY_REPAIR_CONFIG, pacing: { domains: ["rack"] } } }, []), null);
    assert.deepEqual(pacingInputOf({ repair: { ...EMPTY_REPAIR_CONFIG, pacing: { domains: ["rack"] } }, pacing }, [])?.domains, ["rack"]);
  });
});

describe("RackDirectory", () => {
  it("remembers every address of every machine in an answer it passes on, canonical", async () => {
    const racks = new RackDirectory();
    const source = racks.recording({ searchMachines: async () => [machine(["10.0.0.7"], 5)] });
    assert.equal((await source.searchMachines({ having: null, notHaving: null })).length, 1);
    assert.equal(racks.rackOf("10.0.0.7"), 5);
    assert.equal(racks.rackOf("10.0.0.8"), null);
  });

  it("takes the newest answer's rack for a machine that moved", () => {
    const racks = new RackDirectory();
    racks.learn([machine(["10.0.0.7"], 5)]);
    racks.learn([machine(["10.0.0.7"], 6)]);
    assert.equal(racks.rackOf("10.0.0.7"), 6);
  });

  it(`remembers at most ${MAX_REMEMBERED_MACHINES} addresses, forgetting the longest unseen`, () => {
    const racks = new RackDirectory();
    const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
    racks.learn(Array.from({ length: MAX_REMEMBERED_MACHINES }, (_, i) => machine([address(i)], 1)));
    racks.learn([machine([address(0)], 2)]);
    racks.learn([machine([address(MAX_REMEMBERED_MACHINES)], 3)]);
    assert.equal(racks.rackOf(address(0)), 2, "seen again: kept");
    assert.equal(racks.rackOf(address(1)), null, "the longest unseen is forgotten");
    assert.equal(racks.rackOf(address(2)), 1);
    assert.equal(racks.rackOf(address(MAX_REMEMBERED_MACHINES)), 3);
  });
});
