import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { HealthCheckConfig } from "../../src/domain/health/health-check-config.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../src/domain/queue/repair-config.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import type { RemediationRecord } from "../../src/domain/replay/remediation-record.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";
import { subscribe } from "../support/ws-subscriber.js";
import { until } from "../support/until.js";
import { readRemediationRecords } from "../support/replay-records.js";

const STATUS = `name paused expectedNodes currentHealthy unhealthyCount remediationsAllowed gateOpen gateReason held { node reason } targets { node state rule { type status } }`;

async function withCluster(
  check: Partial<HealthCheckConfig>,
  nodes: number,
  scenario: (k: TestKintsugi, kube: FakeKubeApi, machines: SimulatedMachines) => Promise<void>,
  intervalSeconds = 0.2,
  sabakanUrl: string | null = null,
  repairOver: Partial<RepairConfig> = {},
): Promise<void> {
  const dir = tempDir();
  const machines = new SimulatedMachines(dir.path);
  const kube = await startFakeKubeApi();
  for (let i = 1; i <= nodes; i++) kube.addNode({ name: `worker${i}`, internalIP: `10.1.0.${i}`, labels: { role: "worker", "machine-type": "m" } });
  kube.addNode({ name: "cp1", internalIP: "10.1.9.1", labels: { role: "control-plane", "machine-type": "m" } });
  const k = await startTestKintsugi(
    {
      kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
      sabakan: sabakanUrl ? { url: sabakanUrl, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1 << 20 } : null,
      repair: {
        ...EMPTY_REPAIR_CONFIG,
        repairProcedures: [{ machineTypes: ["m"], repairOperations: [{ ...operationOf(machines, [stepOf(machines, "fix")]), operation: "node-not-ready" }] }],
        ...repairOver,
      },
      runner: { intervalSeconds: intervalSeconds, healthCheckConcurrency: 8 },
      constraints: { maximumRepairQueueEntries: 10 },
      healthChecks: [
        {
          name: "workers",
          selector: { matchLabels: { role: "worker" } },
          unhealthyConditions: [
            { type: "Ready", status: "Unknown", timeoutSeconds: 1 },
            { type: "Ready", status: "False", timeoutSeconds: 1 },
          ],
          maxUnhealthy: { kind: "percent", value: 100 },
          unhealthyRange: null,
          operation: "node-not-ready",
          machineType: { from: "label", label: "machine-type" },
          paused: false,
          ...check,
        },
      ],
    },
    { startRunner: true, startSchedule: false },
  );
  try {
    await scenario(k, kube, machines);
  } finally {
    await k.dispose();
    await kube.close();
    dir.remove();
  }
}

/** The remediation records kept in the running server's store, oldest first. */
async function remediationRecords(k: TestKintsugi): Promise<readonly RemediationRecord[]> {
  return (await readRemediationRecords(k.store.pollRecords)).records;
}

describe("node health checks end to end (test Kubernetes API)", () => {
  it("repairs a node whose Ready condition goes Unknown, after its timeout", () =>
    withCluster({}, 3, async (k, kube, machines) => {
      const status = async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0];
      await until("the first evaluation", status, (s) => s.expectedNodes === 3);
      kube.setNodeCondition("worker2", "Ready", "Unknown");
      const entries = async () =>
        (await k.gql(`{ searchRepairEntries { address operation source status nodename history { actor } } }`)).data?.["searchRepairEntries"] as Array<
          Record<string, any>
        >;
      const queued = await until("a repair entry for worker2", entries, (e) => e.length > 0);
      assert.deepEqual(
        queued.map((e) => [e["address"], e["operation"], e["source"]]),
        [["10.1.0.2", "node-not-ready", "health-check:workers"]],
      );
      assert.equal(queued[0]?.["history"][0].actor, "health-check:workers", "the creation's actor is the check, as the entry's source names it");
      const recorded = await remediationRecords(k);
      // Later evaluations may record worker2 again (its entry persisting, nothing enqueued); none before it went bad.
      assert.deepEqual(
        recorded.slice(0, 1).map((r) => [r.check, r.unhealthy.node, r.unhealthy.machineType, r.enqueued]),
        [["workers", ["worker2"], ["m"], ["10.1.0.2"]]],
        "the remediation's record, in its own write; none while nothing was unhealthy",
      );
      assert.ok(recorded.slice(1).every((r) => r.enqueued.length === 0 && r.queue.includes("10.1.0.2")));
      const done = await until("the repair succeeded", entries, (e) => e[0]?.["status"] === "SUCCEEDED");
      assert.equal(done[0]?.["nodename"], "worker2");
      assert.equal(machines.runs("fix", "10.1.0.2"), 1);
      const s = await status();
      assert.deepEqual(
        s.targets.find((t: { node: string }) => t.node === "worker2"),
        { node: "worker2", state: "UNHEALTHY", rule: { type: "Ready", status: "Unknown" } },
      );
      await until(
        "a NodeUnhealthy event on worker2",
        async () => kube.events(),
        (events) => events.some((e) => e["reason"] === "NodeUnhealthy" && e["involvedObject"]?.name === "worker2"),
      );
    }));

  it("notices a condition change through its watch, without waiting for the next interval", () =>
    withCluster(
      {},
      2,
      async (k, kube) => {
        const status = async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0];
        await until("the first evaluation", status, (s) => s.expectedNodes === 2);
        kube.setNodeCondition("worker1", "Ready", "False", new Date(Date.now() - 60_000));
        // The runner's interval is 10 minutes here: only the watch can have woken the health check.
        const s = await until(
          "worker1 is seen unhealthy",
          status,
          (v) => v.targets.some((t: { node: string; state: string }) => t.node === "worker1" && t.state === "UNHEALTHY"),
          30_000,
        );
        assert.equal(s.unhealthyCount, 1);
        kube.endWatches();
        kube.setNodeCondition("worker2", "Ready", "False", new Date(Date.now() - 60_000));
        await until("worker2 too, after the watch was restarted", status, (v) => v.unhealthyCount === 2, 30_000);
      },
      600,
    ));

  it("finds the machine type in sabakan (bmcType of the node's address) when no label is configured", async () => {
    const sabakan = await startFakeSabakan();
    sabakan.addMachine({ serial: "w1", rack: 1, ipv4: ["10.1.0.1"], bmcType: "m" });
    sabakan.addMachine({ serial: "w2", rack: 1, ipv4: ["10.1.0.2"], bmcType: "unknown-type" });
    try {
      await withCluster(
        { machineType: { from: "sabakan" } },
        3,
        async (k, kube) => {
          kube.setNodeCondition("worker1", "Ready", "False", new Date(Date.now() - 60_000));
          kube.setNodeCondition("worker3", "Ready", "False", new Date(Date.now() - 60_000));
          const entries = async () =>
            (await k.gql(`{ searchRepairEntries { address machineType } }`)).data?.["searchRepairEntries"] as Array<{ address: string }>;
          const queued = await until("an entry for worker1", entries, (e) => e.length > 0);
          assert.deepEqual(queued, [{ address: "10.1.0.1", machineType: "m" }]);
          const status = (await k.gql(`{ healthChecks { held { node reason } } }`)).data?.["healthChecks"][0];
          assert.deepEqual(status.held, [{ node: "worker3", reason: "sabakan has no machine with address 10.1.0.3" }]);
        },
        0.2,
        sabakan.url,
      );
    } finally {
      await sabakan.close();
    }
  });

  it("keeps sabakan's machine types and racks in a closed gate's remediation record, for a replay that opens the gate", async () => {
    const sabakan = await startFakeSabakan();
    sabakan.addMachine({ serial: "w1", rack: 1, ipv4: ["10.1.0.1"], bmcType: "m" });
    try {
      await withCluster(
        { machineType: { from: "sabakan" }, maxUnhealthy: { kind: "count", value: 0 } },
        2,
        async (k, kube) => {
          await k.gql(`mutation { setConstraint(name: "maximum-unhealthy-machines-per-rack", value: 2) { maximumUnhealthyMachinesPerRack } }`);
          kube.setNodeCondition("worker1", "Ready", "False", new Date(Date.now() - 60_000));
          const [record] = await until(
            "a closed gate's record",
            () => remediationRecords(k),
            (r) => r.length > 0,
          );
          assert.deepEqual(
            record && [record.gate.open, record.unhealthy.node, record.unhealthy.machineType, record.unhealthy.rack, record.rackLimit, record.enqueued],
            [false, ["worker1"], ["m"], [1], 2, []],
          );
        },
        0.2,
        sabakan.url,
      );
    } finally {
      await sabakan.close();
    }
  });

  it("does not remediate a Node that carries the hold annotation, says why, and remediates it once the annotation is gone", () =>
    withCluster({}, 2, async (k, kube, machines) => {
      const worker1 = { name: "worker1", internalIP: "10.1.0.1", labels: { role: "worker", "machine-type": "m" } };
      kube.addNode({ ...worker1, annotations: { "kintsugi.cybozu.io/hold": "kernel bisect" } });
      for (const n of ["worker1", "worker2"]) kube.setNodeCondition(n, "Ready", "False", new Date(Date.now() - 60_000));
      const entries = async () =>
        (await k.gql(`{ searchRepairEntries { address status } }`)).data?.["searchRepairEntries"] as Array<{ address: string; status: string }>;
      await until("worker2 repaired", entries, (e) => e.some((x) => x.address === "10.1.0.2" && x.status === "SUCCEEDED"));
      const status = async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0];
      const s = await until("worker1 held", status, (v) => v.held.length > 0);
      assert.deepEqual(s.held, [{ node: "worker1", reason: "held by annotation kintsugi.cybozu.io/hold on Node worker1: kernel bisect" }]);
      assert.deepEqual(
        (await entries()).map((e) => e.address),
        ["10.1.0.2"],
      );
      kube.addNode(worker1);
      kube.setNodeCondition("worker1", "Ready", "False", new Date(Date.now() - 60_000));
      await until("worker1 repaired", entries, (e) => e.some((x) => x.address === "10.1.0.1" && x.status === "SUCCEEDED"));
      assert.equal(machines.runs("fix", "10.1.0.1"), 1);
    }));

  it("does not remediate a Node whose machine is held through the API, says who and why, and remediates it once released", () =>
    withCluster({}, 2, async (k, kube, machines) => {
      const held = await k.gql(`mutation { holdMachine(address: "10.1.0.1", reason: "kernel bisect") { address } }`);
      assert.equal(held.errors, undefined, JSON.stringify(held.errors));
      for (const n of ["worker1", "worker2"]) kube.setNodeCondition(n, "Ready", "False", new Date(Date.now() - 60_000));
      const entries = async () =>
        (await k.gql(`{ searchRepairEntries { address status } }`)).data?.["searchRepairEntries"] as Array<{ address: string; status: string }>;
      await until("worker2 repaired", entries, (e) => e.some((x) => x.address === "10.1.0.2" && x.status === "SUCCEEDED"));
      const status = async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0];
      const s = await until("worker1 held", status, (v) => v.held.length > 0);
      assert.deepEqual(s.held, [{ node: "worker1", reason: "held by anonymous: kernel bisect" }]);
      assert.deepEqual(
        (await entries()).map((e) => e.address),
        ["10.1.0.2"],
      );
      await k.gql(`mutation { releaseMachine(address: "10.1.0.1") { address } }`);
      await until("worker1 repaired", entries, (e) => e.some((x) => x.address === "10.1.0.1" && x.status === "SUCCEEDED"));
      assert.equal(machines.runs("fix", "10.1.0.1"), 1);
    }));

  it("never enqueues a node whose machine type has no procedure with the check's operation, and says why", () =>
    withCluster({}, 2, async (k, kube, machines) => {
      kube.addNode({ name: "worker9", internalIP: "10.1.0.9", labels: { role: "worker", "machine-type": "switch" } });
      for (const n of ["worker1", "worker9"]) kube.setNodeCondition(n, "Ready", "False", new Date(Date.now() - 60_000));
      const entries = async () =>
        (await k.gql(`{ searchRepairEntries { address status } }`)).data?.["searchRepairEntries"] as Array<{ address: string; status: string }>;
      await until("worker1 repaired", entries, (e) => e.some((x) => x.address === "10.1.0.1" && x.status === "SUCCEEDED"));
      const status = async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0];
      const s = await until("worker9 held", status, (v) => v.held.length > 0);
      assert.deepEqual(s.held, [
        { node: "worker9", reason: 'not enqueued, the entry would fail at once: repair procedure not found for machine type "switch"' },
      ]);
      assert.deepEqual(
        (await entries()).map((e) => e.address),
        ["10.1.0.1"],
        "no entry for worker9, so its address is not blocked by a failed one",
      );
      assert.equal(machines.log().filter((l) => l.endsWith(" 10.1.0.9")).length, 0);
    }));

  it("holds a Node whose InternalIP is not an IP address: no command, metric or status gets it raw; a mapped IPv6 InternalIP is its IPv4 address", () =>
    withCluster({}, 1, async (k, kube, machines) => {
      const hostile = ["-rf", "--output=/etc/x", "10.1.0.7\u001b[2J\r\n"];
      hostile.forEach((ip, i) => kube.addNode({ name: `evil${i}`, internalIP: ip, labels: { role: "worker", "machine-type": "m" } }));
      kube.addNode({ name: "mapped", internalIP: "::ffff:10.1.0.8", labels: { role: "worker", "machine-type": "m" } });
      for (const n of ["worker1", "mapped", "evil0", "evil1", "evil2"]) kube.setNodeCondition(n, "Ready", "False", new Date(Date.now() - 60_000));
      const entries = async () =>
        (await k.gql(`{ searchRepairEntries { address nodename status } }`)).data?.["searchRepairEntries"] as Array<Record<string, string>>;
      const done = await until("two repairs succeeded", entries, (e) => e.length === 2 && e.every((x) => x["status"] === "SUCCEEDED"));
      assert.deepEqual(done.map((e) => [e["address"], e["nodename"]]).sort(), [
        ["10.1.0.1", "worker1"],
        ["10.1.0.8", "mapped"],
      ]);
      const s = await until(
        "the hostile nodes held",
        async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0],
        (v) => v.held.length === 3,
      );
      assert.deepEqual(s.held, [
        { node: "evil0", reason: 'the node\'s first InternalIP is not an address: invalid IP address: "-rf"' },
        { node: "evil1", reason: 'the node\'s first InternalIP is not an address: invalid IP address: "--output=/etc/x"' },
        { node: "evil2", reason: 'the node\'s first InternalIP is not an address: invalid IP address: "10.1.0.7\\x1b[2J\\x0d\\x0a"' },
      ]);
      const args = machines.log().map((line) => line.split(" ").at(-1));
      assert.ok(args.length > 0 && args.every((a) => a === "10.1.0.1" || a === "10.1.0.8"), JSON.stringify(machines.log()));
      const metrics = await (await fetch(`${k.url}/metrics`)).text();
      assert.doesNotMatch(metrics, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]|-rf|--output/);
      assert.match(metrics, /address="10\.1\.0\.8"/);
    }));

  it("enqueues nothing when three of five nodes go bad at once with max_unhealthy 40%, and says why", () =>
    withCluster({ maxUnhealthy: { kind: "percent", value: 40 } }, 5, async (k, kube) => {
      const status = async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0];
      await until("the first evaluation", status, (s) => s.expectedNodes === 5);
      for (const n of ["worker1", "worker3", "worker5"]) kube.setNodeCondition(n, "Ready", "False");
      const s = await until("three unhealthy", status, (v) => v.targets.filter((t: { state: string }) => t.state === "UNHEALTHY").length === 3);
      assert.equal(s.gateOpen, false);
      assert.equal(s.gateReason, "total: 5, unhealthy: 3, maxUnhealthy: 40%");
      assert.equal(s.remediationsAllowed, 0);
      assert.deepEqual(
        s.held.map((h: { node: string }) => h.node),
        ["worker1", "worker3", "worker5"],
      );
      await until(
        "short-circuit events",
        async () => kube.events(),
        (events) => events.filter((e) => e["reason"] === "RemediationShortCircuited").length === 3,
      );
      // An evaluation commits what it enqueues before it publishes its status: the status above came after the decision.
      assert.deepEqual((await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"], []);
    }));

  it("stops remediating while paused, and resumes (from the CLI), telling subscribers", () =>
    withCluster({}, 3, async (k, kube) => {
      const events = subscribe<{ healthCheckEvents: { name: string; paused: boolean } }>(k.url, `subscription { healthCheckEvents { name paused } }`);
      await events.ready;
      assert.deepEqual(await runCliInProcess(["--server", k.url, "health-check", "pause", "workers"]), { code: 0, stdout: "", stderr: "" });
      await until(
        "a paused event",
        async () => events.received,
        (r) => r.some((e) => e.healthCheckEvents.paused),
      );
      const listed = JSON.parse((await runCliInProcess(["--server", k.url, "health-check", "list"])).stdout);
      assert.deepEqual([listed[0].name, listed[0].paused, listed[0].gateOpen, listed[0].gateReason], ["workers", true, false, "paused"]);
      await events.close();
      kube.setNodeCondition("worker1", "Ready", "Unknown", new Date(Date.now() - 60_000));
      const status = async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0];
      await until("worker1 is seen unhealthy", status, (s) =>
        s.targets.some((t: { node: string; state: string }) => t.node === "worker1" && t.state === "UNHEALTHY"),
      );
      // The status that shows worker1 unhealthy is published after the evaluation that decided not to enqueue it.
      assert.deepEqual((await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"], [], "nothing while paused");
      assert.equal((await runCliInProcess(["--server", k.url, "health-check", "resume", "workers"])).code, 0);
      await until(
        "remediation after resume",
        async () => (await k.gql(`{ searchRepairEntries { address } }`)).data?.["searchRepairEntries"],
        (e: unknown[]) => e.length === 1,
      );
      const missing = await runCliInProcess(["--server", k.url, "health-check", "pause", "nope"]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /health check "nope" not found; known: workers \(NOT_FOUND\)/);
    }));

  it("holds a repeat offender (repair.escalation without an operation) instead of repairing it a third time", () =>
    withCluster(
      {},
      2,
      async (k, kube, machines) => {
        const status = async () => (await k.gql(`{ healthChecks { ${STATUS} } }`)).data?.["healthChecks"][0];
        await until("the first evaluation", status, (s) => s.expectedNodes === 2);
        // The node stays NotReady whatever its repairs do: each success is followed by a new entry once dequeued.
        kube.setNodeCondition("worker1", "Ready", "Unknown");
        const entries = async () =>
          (await k.gql(`{ searchRepairEntries { index status } }`)).data?.["searchRepairEntries"] as Array<{ index: number; status: string }>;
        for (const repair of [1, 2]) {
          const [done] = await until(`repair ${repair} succeeded`, entries, (e) => e.length === 1 && e[0]?.status === "SUCCEEDED");
          await k.gql(`mutation { deleteFinishedRepairEntries { index } }`);
          // Told apart by its index, not its status: on a loaded machine the new entry may already have succeeded.
          if (repair === 1) await until("the second repair is enqueued", entries, (e) => e.length === 1 && e[0]?.index !== done?.index);
        }
        const held = await until("worker1 is held by escalation", status, (s) =>
          s.held.some((h: { reason: string }) => h.reason === "held by escalation: repaired 2 times in 1d"),
        );
        assert.deepEqual(held.held, [{ node: "worker1", reason: "held by escalation: repaired 2 times in 1d" }]);
        assert.deepEqual(await entries(), [], "no third entry");
        assert.ok(machines.runs("fix", "10.1.0.1") >= 1);
      },
      0.2,
      null,
      { escalation: { maxRepairs: 2, windowSeconds: 86_400, operation: null } },
    ));
});
