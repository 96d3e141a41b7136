import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exitCode, ok } from "../support/fake-command-runner.js";
import { harnessRepair, harnessStep, startRunnerHarness } from "../support/runner-harness.js";
import { until } from "../support/until.js";

describe("RepairRunner on the SQLite store: what it commits is what the store announces", () => {
  it("announces every change committed (the runner's and the test's), one for one and in order, through drains, commands, failures, back-offs, deletions and watch expiry", async () => {
    // 10.0.0.1 heals after its repair, .2's repair fails, .4's repair is stopped by a deletion, .5 stays unhealthy.
    const answers: Record<string, ReturnType<typeof ok> | "hold"> = { "10.0.0.1": ok(), "10.0.0.2": exitCode(3), "10.0.0.4": "hold", "10.0.0.5": ok() };
    const h = await startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })]), (argv) => answers[argv[1] ?? ""] ?? exitCode(1));
    try {
      h.nodes.addNode("node1", "10.0.0.1");
      h.nodes.addPod("node1", { namespace: "app", name: "web" });
      // A running, protected Job pod: the drain of node6 fails and backs off.
      h.nodes.addNode("node6", "10.0.0.6");
      h.nodes.addPod("node6", { namespace: "batch", name: "job-1", controllerKind: "Job" });
      const [healing, failing, unknown, deleted, unhealed, backingOff] = [
        await h.add("10.0.0.1"),
        await h.add("10.0.0.2"),
        await h.add("10.0.0.3", "no-such-operation"),
        await h.add("10.0.0.4"),
        await h.add("10.0.0.5"),
        await h.add("10.0.0.6"),
      ].map((e) => e.index) as [number, number, number, number, number, number];
      const entry = (index: number) => h.entries.get(index);
      h.runner.start();

      const repaired = (i: number) => h.published.some((c) => c.entry.index === i && /repair command succeeded/.test(c.record.reason));
      await until(
        "the first round of work is done",
        () =>
          entry(failing)?.status === "failed" &&
          entry(unknown)?.status === "failed" &&
          entry(backingOff)?.drainBackoffCount === 1 &&
          h.commands.runs.some((r) => r.argv[1] === "10.0.0.4" && r.outcome === undefined) &&
          [healing, unhealed].every(repaired),
      );
      h.healthy.add("10.0.0.1");
      // A recovery is seen at the next tick: within one, a pass reuses the entry's verdict.
      h.advance(10_000);
      await h.pass();
      await until("the healed entry succeeds", () => entry(healing)?.status === "succeeded");
      await h.requestDelete(deleted);
      await until("the deleted entry is dequeued", () => entry(deleted) === null);
      h.advance(61_000);
      await h.pass();
      await until("the unhealed entry fails when its watch expires", () => entry(unhealed)?.status === "failed");
      await h.runner.stop();

      const committed = await h.history();
      assert.deepEqual(
        h.published.map((c) => c.record),
        committed,
      );
      for (const change of h.published) {
        assert.equal(change.entry.index, change.record.entryIndex);
        assert.deepEqual(
          [change.entry.status, change.entry.step, change.entry.stepStatus],
          [change.record.status, change.record.step, change.record.stepStatus],
        );
      }
      const byRunner = committed.filter((r) => r.actor === "kintsugi");
      assert.deepEqual(
        [...new Set(byRunner.map((r) => r.kind))].sort(),
        ["dequeued", "note", "transition"],
        "the scenario went through every kind the runner writes",
      );
      assert.deepEqual(
        h.logs.filter((l) => l.level === "error"),
        [],
      );
    } finally {
      await h.dispose();
    }
  });
});
