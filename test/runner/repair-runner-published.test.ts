import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exitCode, ok } from "../support/fake-command-runner.js";
import { harnessRepair, harnessStep, startRunnerHarness } from "../support/runner-harness.js";
import { until } from "../support/until.js";

describe("RepairRunner: what it commits is what it publishes", () => {
  it("publishes every change it commits, one for one and in order, through drains, commands, failures, back-offs, deletions and watch expiry", async () => {
    // 10.0.0.1 heals after its repair, .2's repair fails, .4's repair is stopped by a deletion, .5 stays unhealthy.
    const answers: Record<string, ReturnType<typeof ok> | "hold"> = { "10.0.0.1": ok(), "10.0.0.2": exitCode(3), "10.0.0.4": "hold", "10.0.0.5": ok() };
    const h = startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })]), (argv) => answers[argv[1] ?? ""] ?? exitCode(1));
    try {
      h.nodes.addNode("node1", "10.0.0.1");
      h.nodes.addPod("node1", { namespace: "app", name: "web" });
      // A running, protected Job pod: the drain of node6 fails and backs off.
      h.nodes.addNode("node6", "10.0.0.6");
      h.nodes.addPod("node6", { namespace: "batch", name: "job-1", controllerKind: "Job" });
      const [healing, failing, unknown, deleted, unhealed, backingOff] = [
        h.add("10.0.0.1"),
        h.add("10.0.0.2"),
        h.add("10.0.0.3", "no-such-operation"),
        h.add("10.0.0.4"),
        h.add("10.0.0.5"),
        h.add("10.0.0.6"),
      ].map((e) => e.index) as [number, number, number, number, number, number];
      const entry = (index: number) => h.entries.get(index);
      h.runner.start();

      await until("the first round of work is done", () =>
        entry(failing)?.status === "failed" &&
        entry(unknown)?.status === "failed" &&
        entry(backingOff)?.drainBackoffCount === 1 &&
        h.commands.runs.some((r) => r.argv[1] === "10.0.0.4" && r.outcome === undefined) &&
        [healing, unhealed].every((i) => h.entries.history(i).some((r) => /repair command succeeded/.test(r.reason))),
      );
      h.healthy.add("10.0.0.1");
      await h.pass();
      await until("the healed entry succeeds", () => entry(healing)?.status === "succeeded");
      h.requestDelete(deleted);
      await until("the deleted entry is dequeued", () => entry(deleted) === null);
      h.advance(61_000);
      await h.pass();
      await until("the unhealed entry fails when its watch expires", () => entry(unhealed)?.status === "failed");
      await h.runner.stop();

      const committed = h.history().filter((r) => !h.madeByTest.has(r.sequence));
      assert.deepEqual(h.published.map((c) => c.record), committed);
      for (const change of h.published) {
        assert.equal(change.entry.index, change.record.entryIndex);
        assert.deepEqual([change.entry.status, change.entry.step, change.entry.stepStatus], [change.record.status, change.record.step, change.record.stepStatus]);
      }
      assert.deepEqual([...new Set(committed.map((r) => r.kind))].sort(), ["dequeued", "note", "transition"], "the scenario went through every kind the runner writes");
      assert.deepEqual(h.logs.filter((l) => l.level === "error"), []);
    } finally {
      await h.dispose();
    }
  });
});
