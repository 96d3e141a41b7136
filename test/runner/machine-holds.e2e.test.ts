import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HOLD_ANNOTATION } from "../../src/domain/holds/machine-holds.js";
import { operationOf, startRepairWorld, stepOf, type RepairWorld, type WorldEntry } from "../support/repair-world.js";
import { until } from "../support/until.js";

const ADDRESS = "10.0.3.1";
const HELD_BY = `held by annotation ${HOLD_ANNOTATION} on Node n1: vendor swap`;
const finished = (e: WorldEntry) => e.status === "SUCCEEDED" || e.status === "FAILED";

async function withWorld(steps: (w: RepairWorld["machines"]) => ReturnType<typeof stepOf>[], scenario: (w: RepairWorld) => Promise<void>): Promise<void> {
  const world = await startRepairWorld((m) => ({
    maxConcurrentRepairs: 3,
    repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, steps(m))] }],
  }));
  try {
    await scenario(world);
  } finally {
    await world.dispose();
  }
}

describe("machine holds end to end (test Kubernetes API)", () => {
  it("a Node's hold annotation keeps a queued entry from starting, says who and why, and the entry runs once it is removed", () =>
    withWorld(
      (m) => [stepOf(m, "fix")],
      async (w) => {
        w.kube.addNode({ name: "n1", internalIP: ADDRESS, annotations: { [HOLD_ANNOTATION]: "vendor swap" } });
        const index = await w.add(ADDRESS);
        const waiting = await w.waitFor(index, (e) => e.waitReason === HELD_BY);
        assert.equal(waiting.status, "QUEUED");
        assert.equal(w.machines.runs("fix", ADDRESS), 0);

        w.kube.addNode({ name: "n1", internalIP: ADDRESS });
        const done = await w.waitFor(index, finished);
        assert.equal(done.status, "SUCCEEDED");
        assert.equal(w.machines.runs("fix", ADDRESS), 1);
      },
    ));

  it("a running step finishes its command under a hold and stops before the next one, neither failed nor moved on", () =>
    withWorld(
      (m) => [stepOf(m, "held-reboot", { watchSeconds: 0 }), stepOf(m, "fix")],
      async (w) => {
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
      },
    ));

  it("a hold set through the API keeps a queued entry from starting, says who and until when, and ends by itself: the entry then runs", () =>
    withWorld(
      (m) => [stepOf(m, "fix")],
      async (w) => {
        w.kube.addNode({ name: "n1", internalIP: ADDRESS });
        // Long enough to be seen held under load, short enough to wait for.
        const until = new Date(Date.now() + 3000).toISOString().replace(/\.\d{3}Z$/, "Z");
        await w.mutate(`mutation { holdMachine(address: "${ADDRESS}", reason: "vendor swap", until: "${until}") { address } }`);
        const index = await w.add(ADDRESS);
        const waiting = await w.waitFor(index, (e) => e.waitReason !== null);
        assert.deepEqual([waiting.status, waiting.waitReason], ["QUEUED", `held by anonymous: vendor swap until ${new Date(until).toISOString()}`]);
        assert.equal(w.machines.runs("fix", ADDRESS), 0);

        const done = await w.waitFor(index, finished);
        assert.equal(done.status, "SUCCEEDED");
        assert.equal(w.machines.runs("fix", ADDRESS), 1);
        // The leader removed the ended hold from the store: there is nothing left to release.
        const release = await w.k.gql(`mutation { releaseMachine(address: "${ADDRESS}") { address } }`);
        assert.equal(release.errors?.[0]?.extensions?.["type"], "NOT_FOUND");
      },
    ));

  it("machineHolds lists, on the leader, the annotation holds next to the stored ones, a stored hold shown over an annotation", () =>
    withWorld(
      (m) => [stepOf(m, "fix")],
      async (w) => {
        w.kube.addNode({ name: "n1", internalIP: ADDRESS, annotations: { [HOLD_ANNOTATION]: "vendor swap" } });
        w.kube.addNode({ name: "n2", internalIP: "10.0.3.2", annotations: { [HOLD_ANNOTATION]: "cabling" } });
        await w.mutate(`mutation { holdMachine(address: "10.0.3.2", reason: "stored reason") { address } }`);
        const list = async () => (await w.k.gql(`{ machineHolds { address reason setBy setAt until source } }`)).data?.["machineHolds"];
        const listed = await until("the runner read the annotations", list, (holds) => holds.length === 2);
        assert.deepEqual(
          listed.map((h: Record<string, unknown>) => ({ ...h, setAt: h["setAt"] === null ? null : "set" })),
          [
            { address: ADDRESS, reason: "vendor swap", setBy: `annotation ${HOLD_ANNOTATION} on Node n1`, setAt: null, until: null, source: "ANNOTATION" },
            { address: "10.0.3.2", reason: "stored reason", setBy: "anonymous", setAt: "set", until: null, source: "API" },
          ],
        );
      },
    ));
});
