import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { harnessRepair, harnessStep, startRunnerHarness, withHarness } from "../support/runner-harness.js";

describe("the runner publishes why entries wait", () => {
  it("stores the waits when they change, never on a pass that changes none, and serves the same from memory", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep()], { maxConcurrentRepairs: 1 })), async (h) => {
      const writes: string[][] = [];
      h.store.onCommit((commit) => {
        if (commit.settings.includes("repair-waits")) writes.push([...commit.settings]);
      });
      await h.settings.setRepairQueueEnabled(false);
      const [a, b] = [await h.add("10.0.0.1"), await h.add("10.0.0.2")];
      h.runner.start();
      await h.pass();
      const disabled = [
        { index: a.index, kind: "QUEUE_DISABLED", message: "the repair queue is disabled", until: null, domain: null },
        { index: b.index, kind: "CONCURRENCY", message: "max_concurrent_repairs (1) reached", until: null, domain: null },
      ];
      assert.deepEqual(h.settings.repairWaits(), disabled);
      assert.deepEqual(
        [h.runner.waitingFor(a.index), h.runner.waitingFor(b.index)],
        disabled.map(({ index: _, ...wait }) => wait),
      );
      assert.equal(writes.length, 1);

      await h.pass();
      await h.pass();
      assert.equal(writes.length, 1, "passes that leave the same waits write nothing");

      await h.settings.setRepairQueueEnabled(true);
      await h.pass();
      assert.deepEqual(
        h.settings.repairWaits().map((w) => [w.index, w.kind, w.message]),
        [
          [a.index, "COMMAND", "step 1: running the repair command"],
          [b.index, "CONCURRENCY", "max_concurrent_repairs (1) reached"],
        ],
      );
      assert.equal(writes.length, 2);
      assert.equal(h.runner.waitReason(a.index), null, "waitReason stays the rules' holds only");
    }));
});
