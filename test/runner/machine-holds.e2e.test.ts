import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOLD_ANNOTATION } from "../../src/domain/machine-holds.js";
import { operationOf, startRepairWorld, stepOf, type RepairWorld, type WorldEntry } from "../support/repair-world.js";
import { until } from "../support/until.js";

const ADDRESS = "10.0.3.1";
const HELD_BY = `held by annotation ${HOLD_ANNOTATION} on Node n1: vendor swap`;
const finished = (e: WorldEntry) => e.status === "SUCCEEDED" || e.status === "FAILED";

async function withWorld(steps: (w: RepairWorld["machines"]) => ReturnType<typeof stepOf>[], scenario: (w: RepairWorld) => Promise<void>): Promise<void> {
  const world = await startRepairWorld((m) => ({ maxConcurrentRepairs: 3, repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, steps(m))] }] }));
  try {
    await scenario(world);
  } finally {
    await world.dispose();
  }
}

describe("machine holds end to end (test Kubernetes API)", () => {
  it("a Node's hold annotation keeps a queued entry from starting, says who and why, and the entry runs once it is removed", () =>
    withWorld((m) => [stepOf(m, "fix")], async (w) => {
      w.kube.addNode({ name: "n1", internalIP: ADDRESS, annotations: { [HOLD_ANNOTATION]: "vendor swap" } });
      const index = await w.add(ADDRESS);
      const waiting = await w.waitFor(index, (e) => e.waitReason === HELD_BY);
      assert.equal(waiting.status, "QUEUED");
      assert.equal(w.machines.runs("fix", ADDRESS), 0);

      w.kube.addNode({ name: "n1", internalIP: ADDRESS });
      const done = await w.waitFor(index, finished);
      assert.equal(done.status, "SUCCEEDED");
      assert.equal(w.machines.runs("fix", ADDRESS), 1);
    }));

  it("a running step finishes its command under a hold and stops before the next one, neither failed nor moved on", () =>
    withWorld((m) => [stepOf(m, "held-reboot", { watchSeconds: 0 }), stepOf(m, "fix")], async (w) => {
      w.kube.addNode({ name: "n1", internalIP: ADDRESS });
      const index = await w.add(ADDRESS);
      await w.waitFor(index, (e) => e.status === "PROCESSING" && e.stepStatus === "WATCHING");
      w.kube.addNode({ name: "n1", internalIP: ADDRESS, annotations: { [HOLD_ANNOTATION]: "vendor swap" } });
      await w.waitFor(index, (e) => e.waitReason === HELD_BY);

      w.machines.release(ADDRESS);
      await until("the held command returned", () => w.machines.exists(`returned-${ADDRESS}`));
      // Each pass asks the machine's health: a few passes after the command returned, the next step would have run.
      const checks = w.machines.runs("health", ADDRESS);
      await until("three more passes", () => w.machines.runs("health", ADDRESS) >= checks + 3);
      const held = await w.entry(index);
      assert.deepEqual([held.status, held.step, held.waitReason], ["PROCESSING", 0, HELD_BY]);
      assert.equal(w.machines.runs("fix", ADDRESS), 0, "the next step's command does not start under the hold");

      w.kube.addNode({ name: "n1", internalIP: ADDRESS });
      await w.waitFor(index, () => w.machines.runs("fix", ADDRESS) === 1);
      assert.equal((await w.waitFor(index, finished)).status, "SUCCEEDED");
    }));
});
