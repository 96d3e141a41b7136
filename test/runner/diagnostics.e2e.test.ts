import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { operationOf, startRepairWorld, stepOf, type WorldEntry } from "../support/repair-world.js";

const finished = (e: { status: string }) => e.status === "SUCCEEDED" || e.status === "FAILED";
const at = (e: WorldEntry, pattern: RegExp) => e.history.findIndex((h) => pattern.test(h.reason));

describe("diagnostics before the first destructive step (real child processes, test Kubernetes API)", () => {
  const cases = [
    {
      name: "its output is in the history before the first drain, and it runs once over two steps",
      action: "diag",
      reason: /^step 1: diagnostics command succeeded$/,
      detail: /stdout:\nSEL of 10\.0\.0\.8: PSU 2 failed\n\nstderr:\nipmitool warning/,
    },
    {
      name: "its failure is recorded and the repair goes on",
      action: "diag-fail",
      // The reason ends with the tail of the command's stderr: why it failed, wherever the reason is shown.
      reason: /^step 1: diagnostics command failed \(exit code 4; stderr: BMC of 10\.0\.0\.8 refuses the SEL\); the repair goes on$/,
      detail: /stderr:\nBMC of 10\.0\.0\.8 refuses the SEL/,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const w = await startRepairWorld((m) => ({
        repairProcedures: [
          {
            machineTypes: ["m"],
            repairOperations: [
              operationOf(m, [stepOf(m, "noop", { needDrain: true, watchSeconds: 0 }), stepOf(m, "fix", { needDrain: true })], {
                diagnosticsCommand: m.command(c.action),
                diagnosticsTimeoutSeconds: 10,
              }),
            ],
          },
        ],
      }));
      try {
        w.kube.addNode({ name: "node8", internalIP: "10.0.0.8" });
        const index = await w.add("10.0.0.8");
        const done = await w.waitFor(index, finished);
        assert.equal(done.status, "SUCCEEDED", "diagnostics never block the repair");
        assert.equal(w.machines.runs(c.action, "10.0.0.8"), 1, "once, not again on step 2");

        const started = at(done, /^step 1: running the diagnostics command before the first drain or repair command$/);
        const announced = at(done, /^step 1: starting the diagnostics command, attempt 1 \(operation id \d+-1-1-[0-9a-f]{8}\)$/);
        const output = at(done, c.reason);
        const firstDrain = at(done, /^step 1: draining node node8$/);
        assert.ok(
          started >= 0 && started < announced && announced < output && output < firstDrain,
          `in order: ${done.history.map((h) => h.reason).join(" | ")}`,
        );
        assert.equal(done.history[started]?.status, "PROCESSING");
        assert.equal(done.history[started]?.stepStatus, "WAITING");
        assert.match(done.history[output]?.detail ?? "", c.detail);
        assert.equal(done.history.filter((h) => /diagnostics/.test(h.reason)).length, 3);
      } finally {
        await w.dispose();
      }
    });
  }
});
