import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../src/domain/queue/repair-entry.js";
import { RUNNER_ACTOR } from "../../src/domain/queue/repair-history.js";
import { exitCode, ok } from "../support/fake-command-runner.js";
import { deletedWhileUncordonHeld, harnessRepair, harnessStep, startRunnerHarness, withHarness, type RunnerHarness } from "../support/runner-harness.js";
import { SQLITE_KEYS, withRawDatabase } from "../support/side-store.js";
import { until } from "../support/until.js";

const kinds = async (h: RunnerHarness, index: number) => (await h.entries.history(index)).map((r) => r.kind);

describe("RepairRunner: an action decided on a stale entry is not applied", () => {
  const cases = [
    { name: "unhealthy: the repair command is not started", healthy: false },
    { name: "healthy: the success command is not run and the entry does not succeed", healthy: true },
  ];
  for (const c of cases) {
    it(`drops the action when the entry was marked for deletion while the pass waited on its health check (${c.name})`, () =>
      withHarness(
        startRunnerHarness(harnessRepair([harnessStep()], {}, ["report-success"]), () => ok()),
        async (h) => {
          h.healthHeld.add("10.0.0.1");
          const entry = await h.add("10.0.0.1");
          h.runner.start();
          const check = await h.commands.held("health", "10.0.0.1");
          await h.requestDelete(entry.index);
          h.healthHeld.clear();
          check.finish(ok(c.healthy ? "true\n" : "false\n"));
          await until("the entry is dequeued", () => h.entries.get(entry.index) === null);
          await h.pass();

          assert.deepEqual(h.commands.ran("repair"), [], "no repair command ran");
          assert.deepEqual(h.commands.ran("report-success"), [], "no success command ran");
          assert.deepEqual(await kinds(h, entry.index), ["created", "delete-requested", "dequeued"], "nothing was committed on the stale entry");
          assert.deepEqual(
            h.published.filter((p) => p.record.actor === RUNNER_ACTOR).map((p) => p.record.kind),
            ["dequeued"],
          );
        },
      ));
  }
});

describe("RepairRunner: a job's result is committed only when its entry is unchanged", () => {
  /** One entry whose repair command is running (held); returns the entry as the job works on it, and the run. */
  async function repairing(h: RunnerHarness) {
    const added = await h.add("10.0.0.1");
    h.runner.start();
    const run = await h.commands.held("repair", "10.0.0.1");
    const worked = h.entries.get(added.index) as RepairEntry;
    assert.equal(worked.stepStatus, "watching");
    return { worked, run };
  }

  it("commits the failed command when the entry is unchanged", () =>
    withHarness(startRunnerHarness(harnessRepair()), async (h) => {
      const { worked, run } = await repairing(h);
      run.finish(exitCode(3, "BMC does not answer"));
      await h.pass();
      const after = h.entries.get(worked.index);
      assert.equal(after?.status, "failed");
      assert.match((await h.entries.history(worked.index)).at(-1)?.reason ?? "", /step 1: repair command failed: exit code 3/);
      assert.deepEqual(h.published.at(-1)?.entry, after);
    }));

  it("commits nothing when the entry was marked for deletion before the command finished, and dequeues it next", () =>
    withHarness(startRunnerHarness(harnessRepair()), async (h) => {
      const { worked, run } = await repairing(h);
      // The API's commit and the runner's next pass are apart: the command ends in between.
      await h.requestDelete(worked.index, false);
      run.finish(exitCode(3));
      await h.pass();
      assert.equal(h.entries.get(worked.index), null);
      assert.deepEqual(
        await kinds(h, worked.index),
        ["created", "transition", "note", "delete-requested", "dequeued"],
        "no failure was recorded on the deleted entry",
      );
    }));

  it("commits nothing when the stored entry moved on while the command ran", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep(), harnessStep()])), async (h) => {
      const { worked, run } = await repairing(h);
      // Another writer of the same database file (say, a second kintsugi) moved the entry to its next step.
      const moved: RepairEntry = {
        ...worked,
        step: 1,
        stepStatus: "waiting",
        lastTransitionTime: worked.lastTransitionTime === null ? 0 : worked.lastTransitionTime + 1000,
      };
      await h.entries.change(worked.index, () => [{ entry: moved, kind: "transition", reason: "moved by another writer" }], h.now(), "test");
      run.finish(exitCode(3));
      await h.pass();
      const after = h.entries.get(worked.index);
      assert.deepEqual([after?.status, after?.step], ["processing", 1], "the job's verdict on step 1 was not written over step 2");
      assert.ok(!(await h.entries.history(worked.index)).some((r) => /repair command failed/.test(r.reason)));
    }));
});

describe("RepairRunner: a pass whose commit fails", () => {
  it("still starts the effects of the actions it committed before the failure, and fails the pass", async () => {
    const h = await startRunnerHarness(harnessRepair());
    try {
      const first = await h.add("10.0.0.1");
      const second = await h.add("10.0.0.2");
      withRawDatabase(h.path, (db) =>
        db.exec(`CREATE TRIGGER refuse BEFORE UPDATE ON kv WHEN NEW.key = '${SQLITE_KEYS.entry(second.index)}' BEGIN SELECT RAISE(ABORT, 'disk trouble'); END`),
      );
      h.runner.start();
      const run = await h.commands.held("repair", "10.0.0.1");
      assert.equal(h.entries.get(first.index)?.stepStatus, "watching", "the first entry's transition was committed, then its command started");
      assert.equal(h.entries.get(second.index)?.status, "queued");
      await until("the failed pass is logged", () => h.logs.some((l) => l.level === "error" && /repair pass failed/.test(l.message)));
      run.finish(exitCode(0));
    } finally {
      await h.dispose();
    }
  });
});

describe("RepairRunner: the stray-cordon sweep judges the entries as the pass committed them", () => {
  it("does not uncordon the node of a drain the pass retries after a back-off, though the node kept its cordon through it", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })])), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      h.nodes.addPod("node1", { namespace: "app", name: "web" });
      h.nodes.evictionAnswer = (_pod, dryRun) => (dryRun ? { kind: "evicted" } : { kind: "error", message: "etcdserver: request timed out" });
      // The back-off's uncordon fails, so the node is still cordoned for the entry when its back-off ends.
      h.nodes.failWith("uncordon", new Error("the API server is unavailable"));
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      await until("the failed drain backs off", () => h.entries.get(entry.index)?.drainBackoffCount === 1);
      await h.pass();
      assert.deepEqual(h.nodes.node("node1"), { unschedulable: true, cordonedBy: `repair-entry-${entry.index}` });

      h.nodes.failWith("uncordon", undefined);
      h.nodes.evictionAnswer = () => ({ kind: "evicted" });
      h.advance(301_000);
      const uncordons = h.nodes.callsOf("uncordon").length;
      await h.pass();
      await h.commands.held("repair", "10.0.0.1");

      assert.equal(h.entries.get(entry.index)?.stepStatus, "watching", "the retried drain completed");
      assert.deepEqual(h.nodes.callsOf("uncordon").slice(uncordons), [], "the pass that retried the drain did not take the entry for one still in back-off");
      assert.deepEqual(h.nodes.node("node1"), { unschedulable: true, cordonedBy: `repair-entry-${entry.index}` });
    }));
});

describe("RepairRunner: a node being uncordoned is schedulable again before another is cordoned", () => {
  it("holds a new drain's cordon until the uncordon under way has answered, as CKE uncordons before it repairs", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })])), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      h.nodes.addNode("node2", "10.0.0.2");
      // The first entry is deleted: its node's uncordon is held on its way to Kubernetes.
      const { uncordon } = await deletedWhileUncordonHeld(h, "10.0.0.1");
      const second = await h.add("10.0.0.2");
      // Its drain began (or, cordoning at once, is already past it).
      await until("the second entry's drain started", () => h.entries.get(second.index)?.status === "processing");
      const cordonedMeanwhile = h.nodes.callsOf("cordon").map(([node]) => node);
      // Released before any assertion: a held call would keep the runner's stop waiting.
      uncordon.release();
      assert.deepEqual(cordonedMeanwhile, ["node1"], "node2 is not cordoned while node1's uncordon is under way");
      await until("node2 is cordoned", () => h.nodes.callsOf("cordon").length === 2);
      assert.deepEqual(
        h.nodes.calls.filter((c) => c.method === "cordon" || c.method === "uncordon").map((c) => `${c.method} ${String(c.args[0])}`),
        ["cordon node1", "uncordon node1", "cordon node2"],
      );
    }));
});

describe("RepairRunner: a drain waiting for an uncordon listens to its own stop", () => {
  it("ends at once when its entry is deleted meanwhile, without waiting for the uncordon or cordoning", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })])), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      h.nodes.addNode("node2", "10.0.0.2");
      const { uncordon } = await deletedWhileUncordonHeld(h, "10.0.0.1");
      try {
        const second = await h.add("10.0.0.2");
        await until("the second entry's drain started", () => h.entries.get(second.index)?.status === "processing");
        await h.requestDelete(second.index);
        await until("the second entry is dequeued while node1's uncordon is still held", () => h.entries.get(second.index) === null);
        assert.deepEqual(
          h.nodes.callsOf("cordon").map(([node]) => node),
          ["node1"],
          "node2 was never cordoned",
        );
      } finally {
        uncordon.release();
      }
    }));
});

describe("RepairRunner.passNow: the seam a driver with its own clock runs passes through", () => {
  it("runs one pass without start(), and a second only when asked", () =>
    withHarness(
      startRunnerHarness(harnessRepair(), () => ok()),
      async (h) => {
        const entry = await h.add("10.0.0.1");
        assert.equal(h.runner.passCount, 0, "adding an entry starts no pass before start()");
        await h.runner.passNow();
        assert.equal(h.runner.passCount, 1);
        assert.equal(h.entries.get(entry.index)?.status, "processing", "the pass moved the entry");
        await h.runner.passNow();
        assert.equal(h.runner.passCount, 2);
      },
    ));
});
