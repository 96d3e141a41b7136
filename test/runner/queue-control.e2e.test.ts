import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { operationOf, startRepairWorld, stepOf, type RepairWorld, type WorldEntry } from "../support/repair-world.js";
import { until } from "../support/until.js";

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    // A zombie waiting to be reaped is dead for our purposes.
    return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
};

describe("queue control end to end", () => {
  it("stops a running repair command when its entry is deleted, uncordons the node, and keeps the history", async () => {
    const w = await startRepairWorld((m) => ({
      repairProcedures: [
        { machineTypes: ["m"], repairOperations: [operationOf(m, [stepOf(m, "sleep", { arg: 60, needDrain: true, commandTimeoutSeconds: 120 })])] },
      ],
    }));
    try {
      w.kube.addNode({ name: "node1", internalIP: "10.0.2.1" });
      const index = await w.add("10.0.2.1");
      await until("the repair command runs", () => w.machines.exists("pid-10.0.2.1"));
      const pid = Number(readFileSync(join(w.machines.dir, "pid-10.0.2.1"), "utf8"));
      assert.equal(w.kube.node("node1")?.["spec"]?.unschedulable, true);
      await w.mutate(`mutation { deleteRepairEntry(index: "${index}") { index } }`);
      await until("the entry is dequeued", async () => (await w.k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length === 0);
      await until("the command is stopped", () => !isAlive(pid));
      assert.equal(w.machines.exists("slept-10.0.2.1"), false);
      await until("the node is uncordoned", () => w.kube.node("node1")?.["spec"]?.unschedulable !== true);
      const missing = await w.k.gql(`{ repairEntry(index: "${index}") { index } }`);
      assert.equal(missing.errors?.[0]?.extensions?.type, "NOT_FOUND");
      const history = (await w.k.gql(`{ repairHistory(index: "${index}") { kind reason } }`)).data?.["repairHistory"] as Array<{
        kind: string;
        reason: string;
      }>;
      assert.deepEqual(
        history.map((h) => h.kind),
        ["CREATED", "NOTE", "TRANSITION", "TRANSITION", "NOTE", "DELETE_REQUESTED", "DEQUEUED"],
      );
      assert.match(history.at(-1)?.reason ?? "", /its repair was stopped/);
    } finally {
      await w.dispose();
    }
  });

  it("keeps finishing entries by health check while the queue is disabled, and runs no repair", async () => {
    const w = await startRepairWorld((m) => ({
      repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, [stepOf(m, "fix")], { successCommand: m.command("success") })] }],
    }));
    try {
      await w.mutate(`mutation { setRepairQueueEnabled(enabled: false) }`);
      const healing = await w.add("10.0.3.1");
      const broken = await w.add("10.0.3.2");
      // Every pass health-checks both; a second check of the later one shows a whole pass decided on both.
      await w.waitFor(broken, () => w.machines.runs("health", "10.0.3.2") >= 2);
      assert.deepEqual([(await w.entry(healing)).status, (await w.entry(broken)).status], ["QUEUED", "QUEUED"]);
      w.machines.setHealthy("10.0.3.1");
      const healed = await w.waitFor(healing, (e) => e.status === "SUCCEEDED");
      assert.equal(healed.status, "SUCCEEDED");
      assert.equal(w.machines.runs("success", "10.0.3.1"), 1);
      assert.equal((await w.entry(broken)).status, "QUEUED");
      assert.equal(w.machines.log().filter((l) => l.startsWith("fix ")).length, 0);
      await w.mutate(`mutation { setRepairQueueEnabled(enabled: true) }`);
      assert.equal((await w.waitFor(broken, (e) => e.status === "SUCCEEDED")).status, "SUCCEEDED");
    } finally {
      await w.dispose();
    }
  });

  it("repairs at most max_concurrent_repairs machines at once, and one machine with one entry at a time", async () => {
    const w: RepairWorld = await startRepairWorld((m) => ({
      maxConcurrentRepairs: 2,
      repairProcedures: [
        {
          machineTypes: ["m"],
          repairOperations: [
            operationOf(
              m,
              [stepOf(m, "sleep", { arg: 1 }), stepOf(m, "fix")].map((s, i) => (i === 0 ? { ...s, watchSeconds: 0 } : s)),
            ),
          ],
        },
      ],
    }));
    try {
      const indexes = [await w.add("10.0.4.1"), await w.add("10.0.4.1"), await w.add("10.0.4.2"), await w.add("10.0.4.3")];
      let most = 0;
      let sameMachine = false;
      const finished = (e: WorldEntry) => e.status === "SUCCEEDED" || e.status === "FAILED";
      await until(
        "every entry finishes",
        async () => {
          const entries = (await w.k.gql(`{ searchRepairEntries { address status } }`)).data?.["searchRepairEntries"] as WorldEntry[];
          const processing = entries.filter((e) => e.status === "PROCESSING");
          most = Math.max(most, processing.length);
          sameMachine ||= new Set(processing.map((e) => e.address)).size < processing.length;
          return entries.every(finished);
        },
        Boolean,
        60_000,
      );
      assert.ok(most <= 2, `at most 2 in progress, saw ${most}`);
      assert.equal(sameMachine, false);
      for (const index of indexes) assert.equal((await w.entry(index)).status, "SUCCEEDED");
    } finally {
      await w.dispose();
    }
  });
});
