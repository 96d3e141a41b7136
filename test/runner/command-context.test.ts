import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { exitCode, ok } from "../support/fake-command-runner.js";
import { harnessRepair, harnessStep, startRunnerHarness, withHarness, type RunnerHarness } from "../support/runner-harness.js";
import { withRawDatabase } from "../support/side-store.js";
import { until } from "../support/until.js";

const reasons = async (h: RunnerHarness, index: number) => (await h.entries.history(index)).map((r) => r.reason);

/** Makes the database refuse every history record whose reason contains `text` (a disk that fails that write). */
const refuseNotes = (h: RunnerHarness, text: string) =>
  withRawDatabase(h.path, (db) =>
    db.exec(
      `CREATE TRIGGER refuse_note BEFORE INSERT ON kv WHEN NEW.key LIKE '/kintsugi/history/%' AND instr(CAST(NEW.value AS TEXT), '${text}') > 0 ` +
        "BEGIN SELECT RAISE(ABORT, 'disk trouble'); END",
    ),
  );
const acceptNotes = (h: RunnerHarness) => withRawDatabase(h.path, (db) => db.exec("DROP TRIGGER refuse_note"));
const jobErrors = (h: RunnerHarness) => h.logs.filter((l) => l.level === "error" && l.message.startsWith("repair job failed unexpectedly"));

describe("RepairRunner: each command attempt is announced in the history before it starts", () => {
  it("gives every retry of a repair command its own attempt number and operation id, each recorded before it runs", () =>
    withHarness(startRunnerHarness(harnessRepair([harnessStep({ commandRetries: 1 })])), async (h) => {
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      const first = await h.commands.held("repair", "10.0.0.1");
      const firstId = first.options.env?.["KINTSUGI_OPERATION_ID"] ?? "";
      assert.match(firstId, new RegExp(`^${entry.index}-1-1-[0-9a-f]{8}$`));
      assert.deepEqual(
        { ...first.options.env, KINTSUGI_OPERATION_ID: "" },
        {
          KINTSUGI_ENTRY_INDEX: String(entry.index),
          KINTSUGI_STEP: "1",
          KINTSUGI_ATTEMPT: "1",
          KINTSUGI_OPERATION_ID: "",
          KINTSUGI_SERIAL: "",
          KINTSUGI_NODE: "",
          KINTSUGI_BMC_ADDRESS: "",
          KINTSUGI_BMC_TYPE: "",
        },
      );
      assert.equal(
        (await reasons(h, entry.index)).at(-1),
        `step 1: starting the repair command, attempt 1 (operation id ${firstId})`,
        "committed while the command runs",
      );

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
      h.bmcs.learn([
        {
          serial: "s1",
          rack: 1,
          indexInRack: 1,
          role: "cs",
          ipv4: ["10.0.0.1"],
          bmcType: "IPMI-2.0",
          bmc: { address: "10.0.1.1", type: "IPMI-2.0" },
          state: "UNHEALTHY",
          durationSeconds: 0,
          stateSince: 0,
          registerDate: 0,
          retireDate: 0,
          labels: {},
        },
      ]);
      const entry = await h.add("10.0.0.1");
      h.runner.start();
      const success = await h.commands.held("report-success", "10.0.0.1");
      assert.equal(success.options.env?.["KINTSUGI_BMC_ADDRESS"], "10.0.1.1", "sabakan's spec.bmc.ipv4");
      assert.equal(success.options.env?.["KINTSUGI_BMC_TYPE"], "IPMI-2.0");
      const id = success.options.env?.["KINTSUGI_OPERATION_ID"] ?? "";
      assert.match(id, new RegExp(`^${entry.index}-1-1-`));
      assert.equal(success.options.env?.["KINTSUGI_NODE"], "node1");
      assert.equal((await reasons(h, entry.index)).at(-1), `step 1: starting the success command, attempt 1 (operation id ${id})`);
      const health = h.commands.runs.find((r) => r.argv[0] === "health");
      assert.deepEqual(health?.options.env, {
        KINTSUGI_ENTRY_INDEX: String(entry.index),
        KINTSUGI_STEP: "1",
        KINTSUGI_ATTEMPT: "",
        KINTSUGI_OPERATION_ID: "",
        KINTSUGI_SERIAL: "",
        KINTSUGI_NODE: "node1",
        KINTSUGI_BMC_ADDRESS: "10.0.1.1",
        KINTSUGI_BMC_TYPE: "IPMI-2.0",
      });
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
      await until("the entry is dequeued", () => {
        h.runner.wake();
        return h.entries.get(entry.index) === null;
      });
      assert.equal(h.commands.runs.filter((r) => r.argv[0] === "repair").length, 1, "no retry ran after the deletion");
      assert.ok(!(await reasons(h, entry.index)).some((r) => /attempt 2/.test(r)));
    }));

  it("runs no repair command whose note cannot be committed: the entry watches out its step as after a crash, and is not stuck", async () => {
    const h = await startRunnerHarness(harnessRepair([harnessStep({ watchSeconds: 60 })]));
    try {
      const entry = await h.add("10.0.0.1");
      await refuseNotes(h, "starting the repair command");
      h.runner.start();
      await until("the attempt fails on its note", () => jobErrors(h).length > 0);
      await h.runner.jobs.idle();
      assert.deepEqual(h.commands.ran("repair"), [], "the command did not run");
      assert.equal(h.entries.get(entry.index)?.stepStatus, "watching", "committed before the attempt, as CKE does (at most once)");
      await acceptNotes(h);
      h.advance(61_000);
      await h.pass();
      assert.equal(h.entries.get(entry.index)?.status, "failed", "the watch ended and the last step failed, as after any crash");
      assert.deepEqual(h.commands.ran("repair"), [], "and the attempt was not made again");
    } finally {
      await h.dispose();
    }
  });

  it("runs no success command whose note cannot be committed, does not retry at once, and finishes the entry once the store takes writes", async () => {
    const h = await startRunnerHarness(harnessRepair([harnessStep()], {}, ["report-success"]));
    try {
      h.healthy.add("10.0.0.1");
      const entry = await h.add("10.0.0.1");
      await refuseNotes(h, "starting the success command");
      h.runner.start();
      await until("the attempt fails on its note", () => jobErrors(h).length > 0);
      await h.runner.jobs.idle();
      const passes = h.runner.passCount;
      // Each wake below is one more try; a failed job must not wake the runner itself (it spun through passes and
      // health checks while the store refused the note).
      await h.pass();
      await h.runner.jobs.idle();
      assert.deepEqual(h.commands.ran("report-success"), [], "the command did not run");
      assert.equal(h.entries.get(entry.index)?.status, "queued", "nothing changed");
      assert.ok(h.runner.passCount - passes <= 3, `${h.runner.passCount - passes} passes after two wakes`);
      assert.ok(jobErrors(h).length <= 3, `${jobErrors(h).length} failed attempts after two wakes`);
      await acceptNotes(h);
      h.runner.wake();
      (await h.commands.held("report-success", "10.0.0.1")).finish(ok());
      await until("the entry succeeds", () => h.entries.get(entry.index)?.status === "succeeded");
    } finally {
      await h.dispose();
    }
  });

  it("gives the diagnostics command attempt 1 of step 1 and its own operation id, announced before it starts", () =>
    withHarness(
      startRunnerHarness({
        ...harnessRepair(),
        repairProcedures: [
          {
            machineTypes: ["m"],
            repairOperations: [
              { ...harnessRepair().repairProcedures[0]!.repairOperations[0]!, diagnosticsCommand: ["diagnose"], diagnosticsTimeoutSeconds: 5 },
            ],
          },
        ],
      }),
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
