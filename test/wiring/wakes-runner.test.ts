import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRepairEntry } from "../../src/domain/queue/repair-entry.js";
import { historyRecordFor, RUNNER_ACTOR } from "../../src/domain/queue/repair-history.js";
import type { RepairChange, StoreCommit } from "../../src/store/store-port.js";
import { wakesRunner } from "../../src/wiring/workers.js";
import { NOW } from "../support/fixtures.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";
import { until } from "../support/until.js";

const change = (actor: string): RepairChange => {
  const entry = { ...createRepairEntry({ address: "10.0.0.1", machineType: "qemu", operation: "unreachable", serial: null, source: "test" }, NOW), index: 1 };
  return { entry, previous: null, record: { ...historyRecordFor(entry, "created", "x", NOW, actor), sequence: 1 } };
};
const HOLD = { address: "10.0.0.1", reason: "r", setBy: "alice", setAt: NOW, until: null };
const commit = (over: Partial<StoreCommit>): StoreCommit => ({ entries: [], outcome: null, generation: null, settings: [], ...over });

describe("wakesRunner: which commits give the runner something to look at", () => {
  const cases: Array<[string, StoreCommit, boolean]> = [
    ["an entry an operator added", commit({ entries: [change("alice")] }), true],
    ["entries the poller enqueued", commit({ entries: [change("sabakan"), change("sabakan")] }), true],
    ["an entry a health check enqueued", commit({ entries: [change("health-check:kubelet")] }), true],
    ["a setting (the queue switched on or off)", commit({ settings: ["repair-queue-enabled"] }), true],
    ["the runner's own transitions: it acts on them in the pass that made them", commit({ entries: [change(RUNNER_ACTOR), change(RUNNER_ACTOR)] }), false],
    ["a hold an operator set (its release or replacement may let an entry start)", commit({ holds: [{ kind: "set", hold: HOLD, actor: "alice" }] }), true],
    ["a hold an operator released", commit({ holds: [{ kind: "released", hold: HOLD, actor: "alice" }] }), true],
    [
      "the runner's own removal of expired holds: it removed them in its pass",
      commit({ holds: [{ kind: "expired", hold: HOLD, actor: RUNNER_ACTOR }] }),
      false,
    ],
    ["the waits the runner published: its own output", commit({ settings: ["repair-waits"] }), false],
    ["the published waits with another setting", commit({ settings: ["repair-waits", "repair-queue-enabled"] }), true],
    [
      "a poll's outcome alone",
      commit({ outcome: { sequence: 1, time: NOW, trigger: "schedule", machinesSeen: 0, enqueued: [], skipped: [], shortCircuit: null, error: "down" } }),
      false,
    ],
  ];
  for (const [name, c, wakes] of cases) {
    it(`${wakes ? "wakes" : "does not wake"} it for ${name}`, () => assert.equal(wakesRunner(c), wakes));
  }
});

describe("a started kintsugi's runner, whose safety tick is an hour away", () => {
  it("takes an entry as soon as the commit that enables the queue is announced", async () => {
    const k = await startTestKintsugi({ runner: { intervalSeconds: 3600, healthCheckConcurrency: 4 } }, { startRunner: true });
    try {
      assert.equal((await k.gql(`mutation { setRepairQueueEnabled(enabled: false) }`)).errors, undefined);
      const added = await k.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.1") { index } }`);
      const status = async () => (await k.gql(`{ repairEntry(index: "${added.data?.addRepairEntry.index}") { status } }`)).data?.repairEntry.status;
      assert.equal(await status(), "QUEUED", "held while the queue is disabled");
      await k.gql(`mutation { setRepairQueueEnabled(enabled: true) }`);
      await until("the runner takes the entry", status, (s) => s !== "QUEUED");
    } finally {
      await k.dispose();
    }
  });
});
