import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DRAIN_BACKOFF_BASE_SECONDS } from "../../src/domain/queue/drain-backoff.js";
import { truncateToSeconds } from "../../src/domain/queue/repair-entry.js";
import { deletedWhileUncordonHeld, harnessRepair, harnessStep, startRunnerHarness, withHarness } from "../support/runner-harness.js";
import { until } from "../support/until.js";

const OWNER = (index: number) => `repair-entry-${index}`;

describe("RepairRunner: stopping jobs", () => {
  it("aborts the running repair command of a deleted entry, uncordons its node and dequeues it, saying so in the history", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })])), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      const run = await h.commands.held("repair", "10.0.0.1");
      assert.deepEqual(h.nodes.node("node1"), { unschedulable: true, cordonedBy: OWNER(entry.index) }, "drained first");

      await h.requestDelete(entry.index);
      await until("the entry is dequeued", () => h.entries.get(entry.index) === null);

      assert.equal(run.aborted, true, "the command was stopped through its signal");
      assert.deepEqual(run.outcome, { kind: "aborted" });
      assert.deepEqual(h.nodes.node("node1"), { unschedulable: false, cordonedBy: undefined });
      assert.deepEqual(h.nodes.callsOf("uncordon"), [["node1", OWNER(entry.index)]]);
      assert.equal(h.runner.jobs.kindOf(entry.index), "none");
      const history = await h.entries.history(entry.index);
      assert.deepEqual(
        history.map((r) => r.kind),
        ["created", "note", "transition", "transition", "note", "delete-requested", "dequeued"],
      );
      assert.equal(history.at(-1)?.reason, "dequeued after deletion was requested; its repair was stopped");
      assert.deepEqual(h.commands.ran("repair"), [["repair", "10.0.0.1"]], "run once, never retried");
    }));

  it("dequeues a deleted entry once, though passes run while its dequeue waits on the uncordon", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })])), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      const { entry, uncordon } = await deletedWhileUncordonHeld(h, "10.0.0.1");
      // The entry is still stored, marked deleted: these passes decide to dequeue it again.
      await h.pass();
      uncordon.release();
      await until("the entry is dequeued", () => h.entries.get(entry.index) === null);
      await h.pass();

      assert.deepEqual(h.nodes.callsOf("uncordon"), [["node1", OWNER(entry.index)]]);
      assert.deepEqual((await h.entries.history(entry.index)).filter((r) => r.kind === "dequeued").length, 1);
    }));

  it("abandons a drain when the queue is disabled: backs off, aborts the eviction job and uncordons the node", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ needDrain: true })], { evictRetries: 5, evictInterval: 60 })), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      h.nodes.addPod("node1", { namespace: "app", name: "web" });
      // A PodDisruptionBudget refuses the eviction: the job waits evict_interval before it tries again.
      h.nodes.evictionAnswer = (_pod, dryRun) =>
        dryRun ? { kind: "evicted" } : { kind: "refused", message: "Cannot evict pod as it would violate the pod's disruption budget." };
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      await until("the eviction is refused once", () => h.nodes.callsOf("evict").some(([, options]) => (options as { dryRun: boolean }).dryRun === false));
      assert.equal(h.runner.jobs.kindOf(entry.index), "drain");
      assert.equal(h.entries.get(entry.index)?.stepStatus, "draining");

      await h.settings.setRepairQueueEnabled(false);
      await h.pass();
      await until(
        "the drain job ended and the node is uncordoned",
        () => h.runner.jobs.kindOf(entry.index) === "none" && h.nodes.node("node1")?.unschedulable === false,
      );

      const after = h.entries.get(entry.index);
      assert.deepEqual(
        after && {
          status: after.status,
          stepStatus: after.stepStatus,
          count: after.drainBackoffCount,
          expire: after.drainBackoffExpire,
          lastTransitionTime: after.lastTransitionTime,
        },
        {
          status: "processing",
          stepStatus: "waiting",
          count: 1,
          expire: h.now() + DRAIN_BACKOFF_BASE_SECONDS * 1000,
          lastTransitionTime: truncateToSeconds(h.now()),
        },
      );
      const history = await h.entries.history(entry.index);
      assert.equal(history.at(-1)?.reason, "drain abandoned: the repair queue is disabled");
      assert.ok(!history.some((r) => /drain failed/.test(r.reason)), "the aborted job recorded nothing of its own");
      assert.equal(
        h.nodes.callsOf("evict").filter(([, options]) => (options as { dryRun: boolean }).dryRun === false).length,
        1,
        "no eviction after the abort",
      );
      assert.deepEqual(h.nodes.callsOf("uncordon").at(-1), ["node1", OWNER(entry.index)]);
      assert.deepEqual(h.commands.ran("repair"), []);
      assert.ok(h.nodes.events.some((e) => e.event.reason === "RepairDrainBackoff"));
    }));
});

describe("RepairRunner: stopping promptly", () => {
  it("does not wait for the health checks of a pass in flight: 1,000 queued entries, every check hanging", () =>
    withHarness(startRunnerHarness(harnessRepair()), async (h) => {
      const addresses = Array.from({ length: 1000 }, (_, i) => `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}`);
      for (const address of addresses) h.healthHeld.add(address);
      for (const address of addresses) await h.add(address);
      h.runner.start();
      await h.commands.held("health");
      let late: NodeJS.Timeout | undefined;
      const tooLate = new Promise<never>((_, reject) => (late = setTimeout(() => reject(new Error("the runner did not stop within 5 s")), 5000)));
      await Promise.race([h.runner.stop(), tooLate]).finally(() => clearTimeout(late));
      assert.ok(h.commands.ran("health").length <= 8, "no further check started once the pass was aborted");
    }));
});
