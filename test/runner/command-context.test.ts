import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exitCode, ok } from "../support/fake-command-runner.js";
import { harnessRepair, harnessStep, startRunnerHarness, withHarness, type RunnerHarness } from "../support/runner-harness.js";
import { until } from "../support/until.js";

const reasons = async (h: RunnerHarness, index: number) => (await h.entries.history(index)).map((r) => r.reason);

describe("RepairRunner: each command attempt is announced in the history before it starts", () => {
  it("gives every retry of a repair command its own attempt number and operation id, each recorded before it runs", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ commandRetries: 1 })])), async (h) => {
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      const first = await h.commands.held("repair", "10.0.0.1");
      const firstId = first.options.env?.["KINTSUGI_OPERATION_ID"] ?? "";
      assert.match(firstId, new RegExp(`^${entry.index}-1-1-[0-9a-f]{8}$`));
      assert.deepEqual({ ...first.options.env, KINTSUGI_OPERATION_ID: "" }, {
        KINTSUGI_ENTRY_INDEX: String(entry.index),
        KINTSUGI_STEP: "1",
        KINTSUGI_ATTEMPT: "1",
        KINTSUGI_OPERATION_ID: "",
        KINTSUGI_SERIAL: "",
        KINTSUGI_NODE: "",
      });
      assert.equal((await reasons(h, entry.index)).at(-1), `step 1: starting the repair command, attempt 1 (operation id ${firstId})`, "committed while the command runs");

      first.finish(exitCode(1));
      await until("the retry starts", () => h.commands.runs.filter((r) => r.argv[0] === "repair").length === 2);
      const second = h.commands.runs.filter((r) => r.argv[0] === "repair")[1]!;
      const secondId = second.options.env?.["KINTSUGI_OPERATION_ID"] ?? "";
      assert.equal(second.options.env?.["KINTSUGI_ATTEMPT"], "2");
      assert.match(secondId, new RegExp(`^${entry.index}-1-2-[0-9a-f]{8}$`));
      assert.equal((await reasons(h, entry.index)).at(-1), `step 1: starting the repair command, attempt 2 (operation id ${secondId})`);
      second.finish(ok());
      await until("the outcome is recorded", async () => /repair command succeeded \(attempt 2\)/.test((await reasons(h, entry.index)).at(-1) ?? ""));
    }));

  it("announces the success command, and gives the health check the entry but no attempt", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep()], {}, ["report-success"])), async (h) => {
      h.nodes.addNode("node1", "10.0.0.1");
      h.healthy.add("10.0.0.1");
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      const success = await h.commands.held("report-success", "10.0.0.1");
      const id = success.options.env?.["KINTSUGI_OPERATION_ID"] ?? "";
      assert.match(id, new RegExp(`^${entry.index}-1-1-`));
      assert.equal(success.options.env?.["KINTSUGI_NODE"], "node1");
      assert.equal((await reasons(h, entry.index)).at(-1), `step 1: starting the success command, attempt 1 (operation id ${id})`);
      const health = h.commands.runs.find((r) => r.argv[0] === "health");
      assert.deepEqual(health?.options.env, { KINTSUGI_ENTRY_INDEX: String(entry.index), KINTSUGI_STEP: "1", KINTSUGI_ATTEMPT: "", KINTSUGI_OPERATION_ID: "", KINTSUGI_SERIAL: "", KINTSUGI_NODE: "node1" });
      success.finish(ok());
      await until("the entry succeeds", () => h.entries.get(entry.index)?.status === "succeeded");
    }));

  it("does not start an attempt whose announcement found the entry marked for deletion", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ commandRetries: 1, commandInterval: 0 })])), async (h) => {
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      const first = await h.commands.held("repair", "10.0.0.1");
      await h.requestDelete(entry.index, false);
      first.finish(exitCode(1));
      await until("the entry is dequeued", () => { h.runner.wake(); return h.entries.get(entry.index) === null; });
      assert.equal(h.commands.runs.filter((r) => r.argv[0] === "repair").length, 1, "no retry ran after the deletion");
      assert.ok(!(await reasons(h, entry.index)).some((r) => /attempt 2/.test(r)));
    }));

  it("gives the diagnostics command attempt 1 of step 1 and its own operation id, announced before it starts", () =>
    withHarness(
      startRunnerHarness({ ...harnessRepair(), repairProcedures: [{ machineTypes: ["m"], repairOperations: [{ ...harnessRepair().repairProcedures[0]!.repairOperations[0]!, diagnosticsCommand: ["diagnose"], diagnosticsTimeoutSeconds: 5 }] }] }),
      async (h) => {
        const entry = await h.add("10.0.0.1");
        h.runner.start();
        const diagnose = await h.commands.held("diagnose", "10.0.0.1");
        const id = diagnose.options.env?.["KINTSUGI_OPERATION_ID"] ?? "";
        assert.match(id, new RegExp(`^${entry.index}-1-1-[0-9a-f]{8}$`));
        assert.equal(diagnose.options.env?.["KINTSUGI_ATTEMPT"], "1");
        assert.equal(diagnose.options.timeoutSeconds, 5);
        assert.equal((await reasons(h, entry.index)).at(-1), `step 1: starting the diagnostics command, attempt 1 (operation id ${id})`);
        diagnose.finish(exitCode(1, "no SEL"));
        const repair = await h.commands.held("repair", "10.0.0.1");
        assert.notEqual(repair.options.env?.["KINTSUGI_OPERATION_ID"], id, "each attempt has its own id");
        assert.equal(h.commands.ran("diagnose").length, 1);
      },
    ));
});
