import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { afterEach, describe, it } from "node:test";
import { operationOf, startRepairWorld, stepOf, type RepairWorld, type WorldEntry } from "../support/repair-world.js";
import { until } from "../support/until.js";
import { startFakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi } from "../support/kintsugi-server.js";
import { tempDir } from "../support/temp-dir.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";

const ADDRESS = "10.0.0.7";
const NODE = "node7";
const DWELL_SECONDS = 3;
const reasons = (e: WorldEntry) => e.history.map((h) => h.reason);
const commandRan = (e: WorldEntry) => reasons(e).some((r) => /step 1: repair command succeeded/.test(r));
const notes = (e: WorldEntry, pattern: RegExp) => reasons(e).filter((r) => pattern.test(r));

/**
 * A machine whose repair command "succeeds" (the health check then says healthy) under an operation requiring a new
 * boot ID and a Ready node for DWELL_SECONDS; the watch (60 s) outlasts every test, so only proof ends the entry.
 */
const procedures = (m: SimulatedMachines) => [
  {
    machineTypes: ["m"],
    repairOperations: [
      operationOf(m, [stepOf(m, "fix", { watchSeconds: 60 })], {
        successProof: { requires: ["boot_id_changed" as const, "node_ready" as const], dwellSeconds: DWELL_SECONDS },
      }),
    ],
  },
];

async function provingWorld(): Promise<RepairWorld> {
  const w = await startRepairWorld((m) => ({ repairProcedures: procedures(m) }));
  w.kube.addNode({ name: NODE, internalIP: ADDRESS, bootId: "boot-before" });
  return w;
}

describe("proof of repair, end to end (real child processes, test Kubernetes API, real SQLite)", () => {
  let world: RepairWorld | null = null;
  afterEach(async () => {
    await world?.dispose();
    world = null;
  });

  it("a repair command that 'succeeds' without a new boot ID does not make the entry succeed under boot_id_changed", async () => {
    const w = (world = await provingWorld());
    const index = await w.add(ADDRESS);
    const waiting = await w.waitFor(index, (e) => commandRan(e) && e.waitReason === "waiting for proof: boot_id_changed");
    assert.match(reasons(waiting).join("\n"), /step 1: proof of repair: boot ID boot-before recorded before the repair command/);
    // Many more healthy verdicts later, it is still not taken for repaired.
    const checks = w.machines.runs("health", ADDRESS);
    await until("five more health checks ran", async () => w.machines.runs("health", ADDRESS) >= checks + 5);
    const still = await w.entry(index);
    assert.equal(still.status, "PROCESSING");
    assert.equal(still.waitReason, "waiting for proof: boot_id_changed");
    assert.deepEqual(still.waitingFor, { kind: "PROOF", until: null });
    assert.deepEqual(notes(still, /dwell (started|restarted)|repair proven/), [], "no dwell ever started");
    assert.equal(w.machines.runs("fix", ADDRESS), 1, "the repair command ran once");
  });

  it("one that changes the boot ID succeeds, after the dwell, with the evidence in its history", async () => {
    const w = (world = await provingWorld());
    const index = await w.add(ADDRESS);
    await w.waitFor(index, commandRan);
    w.kube.setNodeBootId(NODE, "boot-after");
    const dwelling = await w.waitFor(index, (e) => /^healthy: proving the repair for /.test(e.waitReason ?? ""));
    assert.equal(dwelling.status, "PROCESSING", "not before the dwell is over");
    assert.equal(dwelling.waitingFor?.kind, "DWELL");
    assert.ok(
      dwelling.waitingFor.until !== null && Date.parse(dwelling.waitingFor.until) > Date.parse(dwelling.lastTransitionTime),
      "it ends when the dwell does",
    );
    const done = await w.waitFor(index, (e) => e.status === "SUCCEEDED" || e.status === "FAILED");
    assert.equal(done.status, "SUCCEEDED");
    const started = done.history.find((h) => /proof of repair: dwell started/.test(h.reason));
    const proven = done.history.find((h) => /proof of repair: repair proven/.test(h.reason));
    assert.ok(started && proven, reasons(done).join("\n"));
    assert.match(
      proven.detail ?? "",
      /^boot ID before boot-before, after boot-after; health_check since \S+, node_ready since \S+, boot_id_changed since \S+; dwell started \S+ \(start 1\); proven \S+$/,
    );
    const dwellStart = Date.parse(/dwell started (\S+) /.exec(proven.detail ?? "")?.[1] ?? "");
    const provenAt = Date.parse(/proven (\S+)$/.exec(proven.detail ?? "")?.[1] ?? "");
    assert.ok(provenAt - dwellStart >= DWELL_SECONDS * 1000, `proven ${provenAt - dwellStart} ms after the dwell started`);

    const res = await w.k.gql(
      `query($i: ID!) { repairEntry(index: $i) { evidence { step bootIdBefore bootIdAfter signals { signal since } dwellStartedAt dwellStarts provenAt } } }`,
      { i: index },
    );
    const evidence = res.data?.["repairEntry"]?.evidence;
    assert.deepEqual(
      { ...evidence, signals: evidence.signals.map((x: { signal: string }) => x.signal) },
      {
        step: 0,
        bootIdBefore: "boot-before",
        bootIdAfter: "boot-after",
        signals: ["health_check", "node_ready", "boot_id_changed"],
        dwellStartedAt: new Date(dwellStart).toISOString(),
        dwellStarts: 1,
        provenAt: new Date(provenAt).toISOString(),
      },
    );
  });

  it("a relapse during the dwell (Node NotReady, then the health check unhealthy) restarts it: three dwell starts", async () => {
    const w = (world = await provingWorld());
    const index = await w.add(ADDRESS);
    await w.waitFor(index, commandRan);
    w.kube.setNodeBootId(NODE, "boot-after");
    await w.waitFor(index, (e) => notes(e, /dwell started/).length === 1);
    w.kube.setNodeCondition(NODE, "Ready", "False");
    await w.waitFor(index, (e) => notes(e, /relapse \(node_ready no longer holds\)/).length === 1 && e.waitReason === "waiting for proof: node_ready");
    w.kube.setNodeCondition(NODE, "Ready", "True");
    await w.waitFor(index, (e) => notes(e, /dwell restarted \(start 2\)/).length === 1);
    w.machines.setHealthy(ADDRESS, false);
    await w.waitFor(index, (e) => notes(e, /relapse \(health_check no longer holds\)/).length === 1);
    w.machines.setHealthy(ADDRESS, true);
    const done = await w.waitFor(index, (e) => e.status === "SUCCEEDED" || e.status === "FAILED");
    assert.equal(done.status, "SUCCEEDED");
    assert.equal(notes(done, /dwell restarted \(start 3\)/).length, 1);
    assert.match(done.history.find((h) => /repair proven/.test(h.reason))?.detail ?? "", /\(start 3\)/);
  });

  it("keeps the recorded boot ID and the dwell across a restart: the new process goes on with the same dwell", async () => {
    const w = (world = await provingWorld());
    const index = await w.add(ADDRESS);
    await w.waitFor(index, commandRan);
    w.kube.setNodeBootId(NODE, "boot-after");
    await w.waitFor(index, (e) => notes(e, /dwell started/).length === 1);
    // The same configuration as the world's, on the same database file: a new process, as after a failover.
    const k2 = await w.k.restart(
      {
        repair: { ...EMPTY_REPAIR_CONFIG, repairProcedures: procedures(w.machines) },
        kubernetes: { kubeconfig: w.kube.kubeconfigPath, timeoutSeconds: 10 },
        runner: { intervalSeconds: 0.1, healthCheckConcurrency: 8 },
      },
      { startRunner: true, random: () => 0 },
    );
    try {
      await until(
        "the restarted kintsugi finished the entry",
        async () => {
          const res = await k2.gql(`query($i: ID!) { repairEntry(index: $i) { status } }`, { i: index });
          return ["SUCCEEDED", "FAILED"].includes(res.data?.["repairEntry"]?.status);
        },
        Boolean,
        30_000,
      );
      const res = await k2.gql(`query($i: ID!) { repairEntry(index: $i) { status history { reason detail } } }`, { i: index });
      const entry = res.data?.["repairEntry"] as { status: string; history: Array<{ reason: string; detail: string | null }> };
      assert.equal(entry.status, "SUCCEEDED");
      assert.equal(entry.history.filter((h) => /dwell (started|restarted)/.test(h.reason)).length, 1, "the dwell did not start over");
      assert.match(entry.history.find((h) => /repair proven/.test(h.reason))?.detail ?? "", /^boot ID before boot-before, after boot-after;.*\(start 1\)/);
      assert.equal(w.machines.runs("fix", ADDRESS), 1, "the repair command did not run again");
    } finally {
      await k2.dispose();
      world = null;
      await w.kube.close();
      rmSync(w.machines.dir, { recursive: true, force: true });
    }
  });

  it("sabakan_healthy waits for sabakan to call the machine HEALTHY (the real client against the test sabakan)", async () => {
    const dir = tempDir("kintsugi-proof-");
    const machines = new SimulatedMachines(dir.path);
    const kube = await startFakeKubeApi();
    const sabakan = await startFakeSabakan();
    sabakan.addMachine({ serial: "s7", rack: 0, ipv4: [ADDRESS], state: "UNHEALTHY" });
    const repair = {
      ...EMPTY_REPAIR_CONFIG,
      repairProcedures: [
        {
          machineTypes: ["m"],
          repairOperations: [
            operationOf(machines, [stepOf(machines, "fix", { watchSeconds: 60 })], {
              successProof: { requires: ["sabakan_healthy" as const], dwellSeconds: 0 },
            }),
          ],
        },
      ],
    };
    const k = await startTestKintsugi(
      {
        repair,
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 20 },
        kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
        runner: { intervalSeconds: 0.1, healthCheckConcurrency: 8 },
      },
      { startRunner: true, startSchedule: false, random: () => 0 },
    );
    try {
      const added = await k.gql(`mutation { addRepairEntry(operation: "op", machineType: "m", address: "${ADDRESS}") { index } }`);
      const index = added.data?.["addRepairEntry"]?.index as string;
      const entry = async () =>
        (await k.gql(`query($i: ID!) { repairEntry(index: $i) { status waitReason history { reason } } }`, { i: index })).data?.["repairEntry"];
      await until("the entry waits for sabakan", entry, (e) => e?.waitReason === "waiting for proof: sabakan_healthy");
      const asked = sabakan.requests.filter((r) => JSON.stringify(r.variables).includes("HEALTHY")).length;
      await until(
        "sabakan was asked again",
        async () => sabakan.requests.length,
        (n) => n >= asked + 3,
      );
      assert.equal((await entry()).status, "PROCESSING", "healthy by its health check, not by sabakan: not repaired");
      sabakan.setState("s7", "HEALTHY");
      const done = await until("the entry finished", entry, (e) => e?.status === "SUCCEEDED" || e?.status === "FAILED");
      assert.equal(done.status, "SUCCEEDED");
      assert.ok(done.history.some((h: { reason: string }) => /proof of repair: repair proven/.test(h.reason)));
    } finally {
      await k.dispose();
      await kube.close();
      await sabakan.close();
      dir.remove();
    }
  });
});
