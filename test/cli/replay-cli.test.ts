import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { tempDir } from "../support/temp-dir.js";
import { until } from "../support/until.js";

const MINUTE = 60_000;

describe("simulateAutoRepair and kintsugi replay (in-process against a started server that polled a storm)", () => {
  let sabakan: FakeSabakan;
  let k: TestKintsugi;
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args]);

  before(async () => {
    sabakan = await startFakeSabakan();
    k = await startTestKintsugi(
      {
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1024 * 1024 },
        constraints: { maximumRepairQueueEntries: 10 },
      },
      { startSchedule: false, startClusterSchedule: false },
    );
    for (const serial of ["r1-1", "r1-2", "r1-3"]) sabakan.addMachine({ serial, rack: 1, state: "UNHEALTHY", stateSince: Date.now() - 10 * MINUTE });
    const polled = await k.gql(`mutation { runAutoRepair { enqueued { address } } }`);
    assert.equal(polled.data?.["runAutoRepair"].enqueued.length, 3, JSON.stringify(polled));
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  it("prints, poll by poll, what a lower queue limit would have done", async () => {
    const r = await cli("replay", "--since", "1h", "--set", "maximum-repair-queue-entries=2");
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.equal(lines[0], "replayed 1 polls: 3 entries enqueued, 0 would have been; 1 polls differ");
    assert.match(lines[1] ?? "", /^\S+Z {2}sabakan {2}was: enqueued 3, queue 0 {2}would be: enqueued 0 \(short-circuited\), queue 0$/);
    assert.deepEqual(lines.slice(2), [
      "  r1-1  10.1.0.1  enqueued -> queue_limit",
      "  r1-2  10.1.0.2  enqueued -> queue_limit",
      "  r1-3  10.1.0.3  enqueued -> queue_limit",
    ]);
    assert.equal((await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length, 3, "the live queue is untouched");
  });

  it("prints the whole answer as JSON, and no difference with the recorded limits", async () => {
    const json = await cli("replay", "--since", "1h", "--set", "maximum-repair-queue-entries=10", "--set", "maximum-unhealthy-machines-per-rack=2", "--json");
    assert.equal(json.code, 0, json.stderr);
    const answer = JSON.parse(json.stdout) as { pollsReplayed: number; polls: Array<{ differences: Array<{ simulated: string }> }> };
    assert.equal(answer.pollsReplayed, 1);
    assert.deepEqual(
      answer.polls[0]?.differences.map((d) => d.simulated),
      ["RACK_LIMIT", "RACK_LIMIT", "RACK_LIMIT"],
    );
    const same = await cli("replay", "--since", "1h");
    assert.equal(same.stdout, "replayed 1 polls: 3 entries enqueued, 3 would have been; 0 polls differ\n");
  });

  it("replays with another runner: the storm's entries are simulated rather than kept as recorded", async () => {
    const r = await cli("replay", "--since", "1h", "--pacing", "rack", "--max-concurrent-repairs", "2", "--json");
    assert.equal(r.code, 0, r.stderr);
    const answer = JSON.parse(r.stdout) as { pollsReplayed: number; enqueuedLive: number; enqueuedSimulated: number; truncated: boolean };
    assert.deepEqual([answer.pollsReplayed, answer.enqueuedLive, answer.enqueuedSimulated, answer.truncated], [1, 3, 3, false]);
    const none = await cli("replay", "--since", "1h", "--pacing", "none");
    assert.equal(none.stdout, "replayed 1 polls: 3 entries enqueued, 3 would have been; 0 polls differ\n");
  });

  const refused: Array<[string, string[], RegExp]> = [
    ["a constraint the intake does not read", ["--set", "minimum-workers=3"], /--set.*expected NAME=VALUE with NAME one of maximum-repair-queue-entries/],
    ["a value that is not a number", ["--set", "maximum-repair-queue-entries=five"], /expected NAME=VALUE/],
    ["a since that is not a time", ["--since", "last week"], /invalid time "last week"/],
    ["a since too far back", ["--since", "40d"], /since: must be within the last 31 days/],
    ["a repair time under a minute", ["--repair-time", "10s"], /repairSeconds: must be an integer from 60 to 2592000, got 10/],
    [
      "a pacing domain kintsugi does not know",
      ["--pacing", "rack,row"],
      /--pacing.*expected "none" or a comma-separated list of rack, machine_type \(each once\), got "rack,row"/,
    ],
    ["a pacing domain listed twice", ["--pacing", "rack,rack"], /--pacing.*each once/],
    ["max-concurrent-repairs of 0", ["--max-concurrent-repairs", "0"], /pacing\.maxConcurrentRepairs: must be an integer from 1 to 10000, got 0/],
    ["max-concurrent-repairs that is not a number", ["--max-concurrent-repairs", "many"], /--max-concurrent-repairs.*expected a whole number, got "many"/],
    [
      "a health-check limit of no known kind",
      ["--set", "health-check.workers.min-healthy=2"],
      /expected health-check\.NAME\.max-unhealthy=VALUE or health-check\.NAME\.unhealthy-range=\[MIN-MAX\]/,
    ],
    [
      "a maxUnhealthy past 100%",
      ["--set", "health-check.workers.max-unhealthy=140%"],
      /health-check\.workers\.max-unhealthy: a whole number or a percentage 0-100% \(e\.g\. 3 or 40%\), got "140%"/,
    ],
    [
      "an unhealthyRange with max < min",
      ["--set", "health-check.workers.unhealthy-range=[3-1]"],
      /health-check\.workers\.unhealthy-range: \[MIN-MAX\] with MIN <= MAX/,
    ],
    [
      "a health check that is not configured",
      ["--set", "health-check.workers.max-unhealthy=40%"],
      /healthChecks\[0\]\.name: no health check named "workers" is configured/,
    ],
  ];
  for (const [name, args, message] of refused) {
    it(`refuses ${name}, naming it`, async () => {
      const r = await cli("replay", ...args);
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, message);
    });
  }

  it("refuses through GraphQL a since in the future and a constraint out of range, with INVALID_ARGUMENT", async () => {
    const future = await k.gql(`{ simulateAutoRepair(since: "2099-01-01T00:00:00Z") { pollsReplayed } }`);
    assert.equal(future.errors?.[0]?.extensions?.["type"], "INVALID_ARGUMENT");
    assert.match(future.errors?.[0]?.message ?? "", /since: must not be in the future/);
    const big = await k.gql(
      `{ simulateAutoRepair(since: "${new Date(Date.now() - MINUTE).toISOString()}", constraints: { maximumRepairQueueEntries: 2000000 }) { pollsReplayed } }`,
    );
    assert.equal(big.errors?.[0]?.extensions?.["type"], "INVALID_ARGUMENT");
    assert.match(big.errors?.[0]?.message ?? "", /constraints\.maximumRepairQueueEntries: must be an integer from 0 to 1000000, got 2000000/);
    const unknown = await k.gql(
      `{ simulateAutoRepair(since: "${new Date(Date.now() - MINUTE).toISOString()}", healthChecks: [{ name: "workers", maxUnhealthy: "40%" }]) { pollsReplayed } }`,
    );
    assert.equal(unknown.errors?.[0]?.extensions?.["type"], "INVALID_ARGUMENT");
    assert.match(unknown.errors?.[0]?.message ?? "", /healthChecks\[0\]\.name: no health check named "workers" is configured/);
  });
});

describe("kintsugi replay with a health check's maxUnhealthy (in-process, the real runner against the test Kubernetes API)", () => {
  let kube: FakeKubeApi;
  let k: TestKintsugi;
  const dir = tempDir();
  const cli = (...args: string[]) => runCliInProcess(["--server", k.url, ...args]);

  before(async () => {
    const machines = new SimulatedMachines(dir.path);
    kube = await startFakeKubeApi();
    for (let i = 1; i <= 3; i++) kube.addNode({ name: `worker${i}`, internalIP: `10.1.0.${i}`, labels: { role: "worker", "machine-type": "m" } });
    k = await startTestKintsugi(
      {
        kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
        repair: {
          ...EMPTY_REPAIR_CONFIG,
          repairProcedures: [{ machineTypes: ["m"], repairOperations: [{ ...operationOf(machines, [stepOf(machines, "fix")]), operation: "node-not-ready" }] }],
        },
        runner: { intervalSeconds: 600, healthCheckConcurrency: 8 },
        constraints: { maximumRepairQueueEntries: 10 },
        healthChecks: [
          {
            name: "workers",
            selector: { matchLabels: { role: "worker" } },
            unhealthyConditions: [{ type: "Ready", status: "False", timeoutSeconds: 1 }],
            maxUnhealthy: { kind: "percent", value: 100 },
            unhealthyRange: null,
            operation: "node-not-ready",
            machineType: { from: "label", label: "machine-type" },
            paused: false,
          },
        ],
      },
      { startRunner: true, startSchedule: false, startClusterSchedule: false },
    );
    kube.setNodeCondition("worker1", "Ready", "False", new Date(Date.now() - 60_000));
    await until(
      "the check enqueued worker1",
      async () => (await k.gql(`{ searchRepairEntries { address } }`)).data?.["searchRepairEntries"] as unknown[],
      (e) => e.length > 0,
    );
  });
  after(async () => {
    await k?.dispose();
    await kube?.close();
    dir.remove();
  });

  it("prints, evaluation by evaluation and marked by the check, that maxUnhealthy 0 would have short-circuited it", async () => {
    const r = await cli("replay", "--since", "1h", "--set", "health-check.workers.max-unhealthy=0");
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split("\n");
    assert.match(lines[0] ?? "", /^replayed 0 polls and \d+ health-check remediations: \d+ entries enqueued, 0 would have been; \d+ evaluations differ$/);
    assert.match(lines[1] ?? "", /^\S+Z {2}health-check:workers {2}was: enqueued 1, queue 0 {2}would be: enqueued 0 \(short-circuited\), queue 0$/);
    assert.equal(lines[2], "  worker1  10.1.0.1  enqueued -> short_circuited");
    const json = await cli(
      "replay",
      "--since",
      "1h",
      "--set",
      "health-check.workers.unhealthy-range=[1-2]",
      "--set",
      "health-check.workers.max-unhealthy=0",
      "--json",
    );
    assert.equal(json.code, 0, json.stderr);
    const answer = JSON.parse(json.stdout) as {
      remediationsReplayed: number;
      polls: Array<{ source: string; healthCheck: string; targets: Array<{ node: string; live: string; simulated: string }> }>;
    };
    assert.ok(answer.remediationsReplayed >= 1);
    assert.deepEqual(
      answer.polls[0] && [answer.polls[0].source, answer.polls[0].healthCheck, answer.polls[0].targets],
      ["health-check:workers", "workers", [{ node: "worker1", address: "10.1.0.1", live: "ENQUEUED", simulated: "SHORT_CIRCUITED" }]],
      "the later --set for a check replaces its earlier one",
    );
    const same = await cli("replay", "--since", "1h", "--set", "health-check.workers.unhealthy-range=[0-3]");
    assert.match(same.stdout, / 0 evaluations differ\n$/);
  });
});
