import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { operationOf, startRepairWorld, stepOf } from "../support/repair-world.js";

const finished = (e: { status: string }) => e.status === "SUCCEEDED" || e.status === "FAILED";

describe("commands know what they are part of (real child processes, test Kubernetes API)", () => {
  it("gives the repair and health check commands the entry's index, step, attempt, operation id, serial and node", async () => {
    const w = await startRepairWorld((m) => ({
      repairProcedures: [
        {
          machineTypes: ["m"],
          repairOperations: [operationOf(m, [stepOf(m, "noop", { watchSeconds: 0 }), stepOf(m, "env-fix")], { healthCheckCommand: m.command("env-health") })],
        },
      ],
    }));
    try {
      w.kube.addNode({ name: "node7", internalIP: "10.0.0.7" });
      const res = await w.k.gql(`mutation { addRepairEntry(operation: "op", machineType: "m", address: "10.0.0.7", serial: "SN-7") { index } }`);
      const index = (res.data?.["addRepairEntry"] as { index: string }).index;
      const done = await w.waitFor(index, finished);
      assert.equal(done.status, "SUCCEEDED");

      const env = w.machines.environment("10.0.0.7");
      assert.equal(env.get("KINTSUGI_ENTRY_INDEX"), index);
      assert.equal(env.get("KINTSUGI_STEP"), "2", "1-based, as the history says step 2");
      assert.equal(env.get("KINTSUGI_ATTEMPT"), "1");
      assert.equal(env.get("KINTSUGI_SERIAL"), "SN-7");
      assert.equal(env.get("KINTSUGI_NODE"), "node7");
      assert.equal(env.get("HOME"), process.env["HOME"], "the operator's environment is kept");
      const id = env.get("KINTSUGI_OPERATION_ID") ?? "";
      assert.match(id, new RegExp(`^${index}-2-1-[0-9a-f]{8}$`));

      const announced = done.history.findIndex((h) => h.reason.includes(`operation id ${id}`));
      const outcome = done.history.findIndex((h) => /step 2: repair command succeeded/.test(h.reason));
      assert.ok(announced >= 0, "the operation id is in the history");
      assert.ok(announced < outcome, "recorded before the command's outcome");
      assert.match(done.history[announced]?.reason ?? "", /^step 2: starting the repair command, attempt 1 \(operation id /);
      const ids = done.history.map((h) => /operation id (\S+)\)/.exec(h.reason)?.[1]).filter((x) => x !== undefined);
      assert.equal(ids.length, 2, "one id per step attempt");
      assert.equal(new Set(ids).size, 2, "each attempt has its own id");

      const health = w.machines.environment("10.0.0.7", "health-env");
      assert.equal(health.get("KINTSUGI_ENTRY_INDEX"), index);
      assert.equal(health.get("KINTSUGI_STEP"), "2");
      assert.equal(health.get("KINTSUGI_NODE"), "node7");
      assert.equal(health.get("KINTSUGI_SERIAL"), "SN-7");
      assert.equal(health.get("KINTSUGI_ATTEMPT"), "", "a health check is not a recorded attempt");
      assert.equal(health.get("KINTSUGI_OPERATION_ID"), "");
    } finally {
      await w.dispose();
    }
  });
});
