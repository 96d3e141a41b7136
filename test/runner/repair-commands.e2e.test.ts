import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { pino } from "pino";
import type { RepairConfig } from "../../src/domain/queue/repair-config.js";
import type { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, startRepairWorld, stepOf, type RepairWorld } from "../support/repair-world.js";

const finished = (e: { status: string }) => e.status === "SUCCEEDED" || e.status === "FAILED";

/** Runs `scenario` in a fresh world with one procedure for type "m" built by `build`. */
async function withWorld(
  build: (m: SimulatedMachines) => Partial<RepairConfig> & Pick<RepairConfig, "repairProcedures">,
  scenario: (w: RepairWorld) => Promise<void>,
): Promise<void> {
  const world = await startRepairWorld(build);
  try {
    await scenario(world);
  } finally {
    await world.dispose();
  }
}

const one = (m: SimulatedMachines, ...args: Parameters<typeof operationOf> extends [unknown, ...infer R] ? R : never) => ({
  repairProcedures: [{ machineTypes: ["m"], repairOperations: [operationOf(m, ...args)] }],
});

describe("repair commands end to end (real child processes, test Kubernetes API)", () => {
  it("repairs a node: drains it, runs the command, watches it heal, uncordons it", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "fix", { needDrain: true })]),
      async (w) => {
        w.kube.addNode({ name: "node1", internalIP: "10.0.0.1" });
        w.kube.addPod({ namespace: "app", name: "web", nodeName: "node1", controllerKind: "ReplicaSet" });
        w.kube.addPod({ namespace: "kube-system", name: "agent", nodeName: "node1", controllerKind: "DaemonSet" });
        const index = await w.add("10.0.0.1");
        const done = await w.waitFor(index, finished);
        assert.equal(done.status, "SUCCEEDED");
        assert.equal(done.nodename, "node1");
        assert.equal(w.machines.runs("fix", "10.0.0.1"), 1);
        assert.deepEqual(
          w.kube.evictions.map((e) => [`${e.namespace}/${e.name}`, e.dryRun]),
          [
            ["app/web", true],
            ["app/web", false],
          ],
          "dry run first, and DaemonSet pods are left alone",
        );
        assert.deepEqual(
          w.kube.pods().map((p) => p.name),
          ["agent"],
        );
        await w.waitFor(index, () => w.kube.node("node1")?.["spec"]?.unschedulable !== true);
        assert.equal(w.kube.node("node1")?.["metadata"]?.annotations?.["kintsugi.cybozu.io/cordoned-by"], undefined);
        assert.ok(
          w.kube.requests.some((r) => r.method === "PATCH" && r.path === "/api/v1/nodes/node1"),
          "it was cordoned",
        );
        assert.deepEqual(
          done.history.filter((h) => h.kind === "TRANSITION").map((h) => `${h.status}/${h.stepStatus}`),
          ["PROCESSING/DRAINING", "PROCESSING/WATCHING", "SUCCEEDED/WATCHING"],
        );
        assert.match(
          done.history.find((h) => h.kind === "NOTE" && /repair command succeeded/.test(h.reason))?.detail ?? "",
          /command: \["sh",.*"fix","10\.0\.0\.1"\]/,
        );
        await w.waitFor(index, () => w.kube.events().filter((e) => e["involvedObject"]?.name === "node1").length >= 3);
        assert.deepEqual(
          w.kube
            .events()
            .map((e) => e["reason"])
            .sort(),
          ["RepairDrainStarted", "RepairStarted", "RepairSucceeded"],
        );
      },
    ));

  it("fails the entry when the repair command fails, with its exit code and stderr in the history", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "fail")]),
      async (w) => {
        const index = await w.add("10.0.0.2");
        const done = await w.waitFor(index, finished);
        assert.equal(done.status, "FAILED");
        const last = done.history.at(-1);
        assert.match(last?.reason ?? "", /step 1: repair command failed: exit code 3/);
        assert.match(last?.detail ?? "", /stderr: BMC of 10\.0\.0\.2 does not answer/);
        assert.equal(w.machines.runs("fail", "10.0.0.2"), 1);
      },
    ));

  it("fails the entry when the repair command times out, and kills it", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "sleep", { arg: 30, commandTimeoutSeconds: 1 })]),
      async (w) => {
        const index = await w.add("10.0.0.3");
        const done = await w.waitFor(index, finished);
        assert.equal(done.status, "FAILED");
        assert.match(done.history.at(-1)?.reason ?? "", /timed out after 1s/);
        assert.equal(w.machines.exists("slept-10.0.0.3"), false, "the command did not run to its end");
      },
    ));

  it("retries a failing repair command and succeeds on the third attempt", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "fail-times", { arg: 2, commandRetries: 2, commandInterval: 1 })]),
      async (w) => {
        const index = await w.add("10.0.0.4");
        const done = await w.waitFor(index, finished);
        assert.equal(done.status, "SUCCEEDED");
        assert.equal(w.machines.runs("fail-times", "10.0.0.4"), 3);
        assert.ok(done.history.some((h) => /repair command succeeded \(attempt 3\)/.test(h.reason)));
      },
    ));

  it("fails when every retry fails, and says why everywhere: the reason, the API, the finished record, the log line", async () => {
    const logged: string[] = [];
    const w = await startRepairWorld((m) => one(m, [stepOf(m, "fail", { commandRetries: 1 })]), {
      logger: pino({ level: "warn" }, { write: (line: string) => void logged.push(line) }),
    });
    try {
      const index = await w.add("10.0.0.5");
      const done = await w.waitFor(index, finished);
      assert.equal(done.status, "FAILED");
      const why = "step 1: repair command failed on all 2 attempts: exit code 3; stderr: BMC of 10.0.0.5 does not answer";
      assert.equal(done.history.at(-1)?.reason, why);
      assert.equal(w.machines.runs("fail", "10.0.0.5"), 2);
      const res = await w.k.gql<{ repairEntry: { failure: string | null }; finishedRepairs: Array<{ index: number; reason: string | null }> }>(
        `query($i: ID!, $since: DateTime!) { repairEntry(index: $i) { failure } finishedRepairs(since: $since) { index reason } }`,
        { i: index, since: new Date(Date.now() - 3_600_000).toISOString() },
      );
      assert.equal(res.data?.repairEntry.failure, why, "RepairEntry.failure");
      assert.deepEqual(res.data?.finishedRepairs, [{ index: Number(index), reason: why }], "FinishedRepair.reason");
      const lines = logged.map((l) => JSON.parse(l) as { msg: string; why?: string; attempt?: number });
      assert.deepEqual(
        lines.filter((l) => l.msg === "repair command failed").map((l) => [l.attempt, l.why]),
        [
          [1, "exit code 3; stderr: BMC of 10.0.0.5 does not answer"],
          [2, "exit code 3; stderr: BMC of 10.0.0.5 does not answer"],
        ],
        "the log line of each attempt says why",
      );
    } finally {
      await w.dispose();
    }
  });

  it("moves to the next step when the watch expires, and succeeds there", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "noop", { watchSeconds: 1 }), stepOf(m, "fix")]),
      async (w) => {
        const done = await w.waitFor(await w.add("10.0.0.6"), finished);
        assert.equal(done.status, "SUCCEEDED");
        assert.equal(done.step, 1);
        assert.ok(done.history.some((h) => /still unhealthy after watching 1s; moving to step 2/.test(h.reason)));
        assert.deepEqual([w.machines.runs("noop", "10.0.0.6"), w.machines.runs("fix", "10.0.0.6")], [1, 1]);
      },
    ));

  it("fails after the last step when the machine never heals", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "noop", { watchSeconds: 0 }), stepOf(m, "noop", { watchSeconds: 1 })]),
      async (w) => {
        const done = await w.waitFor(await w.add("10.0.0.7"), finished);
        assert.equal(done.status, "FAILED");
        assert.equal(done.step, 1);
        assert.match(done.history.at(-1)?.reason ?? "", /still unhealthy after watching 1s after the last step \(2\)/);
        assert.equal(w.machines.runs("noop", "10.0.0.7"), 2);
      },
    ));

  it("fails when the success command fails, though the machine healed", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "fix")], { successCommand: m.command("success-fail") }),
      async (w) => {
        const done = await w.waitFor(await w.add("10.0.0.8"), finished);
        assert.equal(done.status, "FAILED");
        assert.equal(done.history.at(-1)?.reason, "healthy, but the success command failed: exit code 2; stderr: cannot tell sabakan");
        assert.match(done.history.at(-1)?.detail ?? "", /cannot tell sabakan/);
      },
    ));

  it("succeeds without any repair command when the machine is already healthy, running the success command", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "fix")], { successCommand: m.command("success") }),
      async (w) => {
        w.machines.setHealthy("10.0.0.9");
        const done = await w.waitFor(await w.add("10.0.0.9"), finished);
        assert.equal(done.status, "SUCCEEDED");
        assert.equal(done.stepStatus, "WAITING");
        assert.equal(w.machines.runs("fix", "10.0.0.9"), 0);
        assert.equal(w.machines.runs("success", "10.0.0.9"), 1);
      },
    ));

  it("passes the address as one argument: nothing is interpreted by a shell", () =>
    withWorld(
      (m) => one(m, [stepOf(m, "fix")]),
      async (w) => {
        const done = await w.waitFor(await w.add("fd00::10"), finished);
        assert.equal(done.status, "SUCCEEDED");
        assert.equal(w.machines.runs("fix", "fd00::10"), 1);
      },
    ));
});
