import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideIntake, type IntakeInput } from "../../../src/domain/auto-repair-intake.js";
import { recordPoll } from "../../../src/domain/poll-record.js";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, newEntry, outcome, type StoreHarness } from "./store-harness.js";

const input: IntakeInput = {
  machines: [{ serial: "s1", rack: 1, indexInRack: 1, role: "cs", ipv4: ["10.0.0.1"], bmcType: "IPMI-2.0", state: "UNHEALTHY", durationSeconds: 60, stateSince: NOW - 60_000, registerDate: 0, retireDate: 0, labels: {} }],
  entries: [],
  nodes: new Map(),
  constraints: { maximumRepairQueueEntries: 5, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 },
};
const record = recordPoll(input, decideIntake(input), NOW);

/** The poll records (the what-if replay's input): written with the poll's entries and outcome, or not at all. */
export function pollRecordCases(h: StoreHarness): void {
  // The etcd backend keeps none yet (its store has no pollRecords port).
  describe("poll records", { skip: h.name === "etcd" ? "etcd keeps no poll records yet" : false }, () => {
    it("keeps a poll's record in the poll's own write, across a restart", async () => {
      const store = await h.open();
      assert.ok(store.pollRecords, `${h.name} has a pollRecords port`);
      await store.enqueue(() => ({ add: [{ entry: newEntry("10.0.0.1"), reason: "r" }], outcome: () => outcome(1), pollRecord: record }), NOW, ACTOR);
      assert.deepEqual(await store.pollRecords.since(0, 10), { records: [record], unreadable: 0 });
      assert.deepEqual(await (await h.reopen()).pollRecords?.since(0, 10), { records: [record], unreadable: 0 });
    });

    it("keeps no record of a write that did not commit", async () => {
      const store = await h.open();
      assert.ok(store.pollRecords, `${h.name} has a pollRecords port`);
      await assert.rejects(
        store.enqueue(() => ({ add: [{ entry: newEntry("10.0.0.1"), reason: "r" }], outcome: () => { throw new Error("the outcome failed"); }, pollRecord: record }), NOW, ACTOR),
        /the outcome failed/,
      );
      assert.deepEqual(await store.pollRecords.since(0, 10), { records: [], unreadable: 0 });
    });
  });
}
