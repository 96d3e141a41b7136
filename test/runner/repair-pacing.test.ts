import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ok } from "../support/fake-command-runner.js";
import { join } from "node:path";
import { harnessRepair, harnessStep, startRunnerHarness, withHarness } from "../support/runner-harness.js";
import { tempDir } from "../support/temp-dir.js";

const SEC = 1000;

describe("the runner paces repairs by their results", () => {
  it("a machine type starts one repair, then two after a success, and reports why the others wait", () =>
    withHarness(
      startRunnerHarness(harnessRepair([harnessStep()], { pacing: { domains: ["machine_type"] } }), () => ok()),
      async (h) => {
        const [a, b, c] = [await h.add("10.0.0.1"), await h.add("10.0.0.2"), await h.add("10.0.0.3")];
        h.runner.start();
        await h.pass();
        assert.deepEqual(h.commands.ran("repair"), [["repair", "10.0.0.1"]]);
        assert.match(h.runner.waitReason(b.index) ?? "", /^pacing: machine type "m" allows 1 repair in progress \(no finished entry yet\)$/);
        assert.deepEqual(
          h.runner.pacingState()?.map((p) => [p.domain, p.value, p.allowance, p.inProgress]),
          [["machine_type", "m", 1, 1]],
        );

        h.healthy.add("10.0.0.1");
        h.advance(10 * SEC);
        await h.pass();
        assert.equal(h.entries.get(a.index)?.status, "succeeded");
        await h.pass();
        assert.deepEqual(h.commands.ran("repair").slice(1), [
          ["repair", "10.0.0.2"],
          ["repair", "10.0.0.3"],
        ]);
        assert.equal(h.runner.waitReason(c.index), null);
        const [state] = h.runner.pacingState() ?? [];
        assert.deepEqual([state?.allowance, state?.inProgress, state?.lastChange?.entryIndex, state?.lastChange?.status], [2, 2, a.index, "succeeded"]);
      },
    ));

  it("without repair.pacing every entry starts at CKE's width", () =>
    withHarness(
      startRunnerHarness(harnessRepair([harnessStep()]), () => ok()),
      async (h) => {
        for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) await h.add(address);
        h.runner.start();
        await h.pass();
        assert.equal(h.commands.ran("repair").length, 3);
        assert.equal(h.runner.pacingState(), null);
      },
    ));

  it("a restarted runner paces as before, a failure already dequeued included (the allowance stays 1)", async () => {
    const dir = tempDir("kintsugi-pacing-restart-");
    const path = join(dir.path, "kintsugi.db");
    const repair = harnessRepair([harnessStep()], { pacing: { domains: ["machine_type"] } });
    try {
      await withHarness(
        startRunnerHarness(repair, () => ok(), { path }),
        async (h) => {
          const [a, b] = [await h.add("10.0.0.1"), await h.add("10.0.0.2")];
          h.runner.start();
          await h.pass();
          h.healthy.add("10.0.0.1");
          h.advance(10 * SEC);
          await h.pass();
          assert.equal(h.entries.get(a.index)?.status, "succeeded");
          await h.pass();
          assert.deepEqual(h.commands.ran("repair").at(-1), ["repair", "10.0.0.2"]);
          h.advance(61 * SEC);
          await h.pass();
          assert.equal(h.entries.get(b.index)?.status, "failed");
          await h.requestDelete(b.index);
          await h.pass();
          assert.equal(h.entries.get(b.index), null, "the failure left the queue; the success stays in it");
          assert.deepEqual(
            h.runner.pacingState()?.map((p) => [p.allowance, p.lastChange?.entryIndex, p.lastChange?.status]),
            [[1, b.index, "failed"]],
          );
        },
      );
      await withHarness(
        startRunnerHarness(repair, () => ok(), { path }),
        async (h) => {
          h.advance(120 * SEC);
          for (const address of ["10.0.0.3", "10.0.0.4"]) await h.add(address);
          h.runner.start();
          await h.pass();
          assert.deepEqual(h.commands.ran("repair"), [["repair", "10.0.0.3"]], "one start: the dequeued failure still holds the allowance at 1");
          const [state] = h.runner.pacingState() ?? [];
          assert.deepEqual([state?.allowance, state?.lastChange?.status], [1, "failed"]);
        },
      );
    } finally {
      dir.remove();
    }
  });
});
