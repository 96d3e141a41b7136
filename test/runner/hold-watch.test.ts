import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOLD_ANNOTATION, type MachineHold } from "../../src/domain/holds/machine-holds.js";
import { HoldWatch } from "../../src/runner/hold-watch.js";
import { exitCode, ok } from "../support/fake-command-runner.js";
import { harnessRepair, harnessStep, startRunnerHarness, withHarness, type RunnerHarness } from "../support/runner-harness.js";
import { until } from "../support/until.js";

const hold = (address: string): [string, MachineHold] => [address, { address, reason: "vendor swap", setBy: "alice", setAt: 0, until: null, source: "api" }];

describe("HoldWatch", () => {
  it("lets a job go on at once when its machine is not held", async () => {
    const watch = new HoldWatch();
    watch.update(new Map([hold("10.0.0.2")]));
    assert.equal(await watch.untilReleased("10.0.0.1", new AbortController().signal), true);
  });

  it("keeps a job waiting while the passes find its machine held, and lets it go at the first that does not", async () => {
    const watch = new HoldWatch();
    watch.update(new Map([hold("10.0.0.1")]));
    let released: boolean | null = null;
    const waiting = watch.untilReleased("10.0.0.1", new AbortController().signal).then((r) => (released = r));
    watch.update(new Map([hold("10.0.0.1"), hold("10.0.0.2")]));
    await Promise.resolve();
    assert.equal(released, null, "still held");
    watch.update(new Map([hold("10.0.0.2")]));
    await waiting;
    assert.equal(released, true);
  });

  it("ends the wait with false when the job is stopped", async () => {
    const watch = new HoldWatch();
    watch.update(new Map([hold("10.0.0.1")]));
    const stop = new AbortController();
    const waiting = watch.untilReleased("10.0.0.1", stop.signal);
    stop.abort();
    assert.equal(await waiting, false);
  });
});

const reasons = async (h: RunnerHarness, index: number) => (await h.entries.history(index)).map((r) => r.reason);

describe("RepairRunner: a hold stops a step before its next command, retries included", () => {
  it("lets the running attempt finish, starts no retry while the machine is held, and retries once the hold ends", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ commandRetries: 1 })])), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      const first = await h.commands.held("repair", "10.0.0.1");
      h.nodes.annotate("node1", HOLD_ANNOTATION, "vendor swap");
      await h.pass();
      assert.match(h.runner.waitReason(entry.index) ?? "", /^held by annotation kintsugi\.cybozu\.io\/hold on Node node1: vendor swap$/);

      first.finish(exitCode(1));
      await until("the first attempt's failure is seen", () => h.logs.some((l) => l.message === "repair command failed"));
      await h.pass();
      await h.pass();
      assert.equal(h.commands.ran("repair").length, 1, "no retry under the hold");
      assert.deepEqual([h.entries.get(entry.index)?.status, h.entries.get(entry.index)?.stepStatus], ["processing", "watching"], "neither failed nor moved on");
      assert.equal(h.runner.jobs.kindOf(entry.index), "repair-command", "the step waits to retry");

      h.nodes.annotate("node1", HOLD_ANNOTATION, null);
      await h.pass();
      (await h.commands.held("repair", "10.0.0.1")).finish(ok());
      await until("the retry's outcome is recorded", async () => /repair command succeeded \(attempt 2\)/.test((await reasons(h, entry.index)).at(-1) ?? ""));
    }));

  it("a deletion ends a retry's wait: the entry is dequeued and the retry never runs", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ commandRetries: 1 })])), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      const first = await h.commands.held("repair", "10.0.0.1");
      h.nodes.annotate("node1", HOLD_ANNOTATION, "vendor swap");
      await h.pass();
      first.finish(exitCode(1));
      await until("the first attempt's failure is seen", () => h.logs.some((l) => l.message === "repair command failed"));
      await h.requestDelete(entry.index);
      await until("the entry is dequeued", () => h.entries.get(entry.index) === null);
      assert.equal(h.commands.ran("repair").length, 1);
    }));
});
