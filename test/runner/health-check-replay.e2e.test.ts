import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { join } from "node:path";
import { KubeNodeOperator } from "../../src/adapters/kube-node-operator.js";
import { replayAutoRepair } from "../../src/domain/replay/auto-repair-replay.js";
import type { HealthCheckConfig } from "../../src/domain/health/health-check-config.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../src/domain/queue/repair-config.js";
import type { RemediationRecord } from "../../src/domain/replay/remediation-record.js";
import type { TargetFate } from "../../src/domain/replay/remediation-replay.js";
import { HealthCheckRunner } from "../../src/runner/health-check-runner.js";
import { SILENT_LOG } from "../../src/support/log.js";
import { openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../src/store/store-port.js";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { tempDir } from "../support/temp-dir.js";
import { readRemediationRecords } from "../support/replay-records.js";

const START = Date.UTC(2026, 10, 23, 6, 0, 0);
const MINUTE = 60_000;
const log = SILENT_LOG;
const WORKERS = 6;
const address = (n: number) => `10.1.0.${n}`;

/**
 * The evaluations, one a minute: the workers whose Ready condition changes before it (False ten minutes ago:
 * unhealthy at once; "pending": False just now, within the check's 60 s timeout; True: recovered).
 */
const SCRIPT: ReadonlyArray<ReadonlyArray<readonly [worker: number, ready: "False" | "pending" | "True"]>> = [
  [[1, "False"]],
  [
    [2, "False"],
    [3, "False"],
  ],
  [[4, "pending"]],
  [
    [1, "True"],
    [2, "True"],
  ],
  [[5, "False"]],
  [
    [3, "True"],
    [4, "True"],
    [5, "True"],
  ],
  [[6, "False"]],
];

const op = {
  operation: "node-not-ready",
  repairSteps: [],
  healthCheckCommand: ["true"],
  commandTimeoutSeconds: 30,
  successCommand: null,
  successCommandTimeout: 30,
};
const REPAIR: RepairConfig = { ...EMPTY_REPAIR_CONFIG, repairProcedures: [{ machineTypes: ["m"], repairOperations: [op] }] };
const check = (maxUnhealthy: HealthCheckConfig["maxUnhealthy"]): HealthCheckConfig => ({
  name: "workers",
  selector: { matchLabels: { role: "worker" } },
  unhealthyConditions: [{ type: "Ready", status: "False", timeoutSeconds: 60 }],
  maxUnhealthy,
  unhealthyRange: null,
  operation: "node-not-ready",
  machineType: { from: "label", label: "machine-type" },
  paused: false,
});
const RECORDED = check({ kind: "percent", value: 40 });
const OTHER = check({ kind: "percent", value: 60 });

/** What one evaluation did, as an operator sees it: the unhealthy targets' fates from the queue and the check's status. */
interface Evaluated {
  readonly time: number;
  readonly enqueued: readonly string[];
  readonly shortCircuited: boolean;
  readonly fates: ReadonlyMap<string, TargetFate>;
}

/**
 * One live run of the script: the real health-check runner against the fake Kubernetes API server over HTTPS, with a
 * real SQLite store; an entry leaves the queue when its node is Ready again (as a finished repair would).
 */
async function liveRun(
  kube: FakeKubeApi,
  clock: { now: number },
  dir: string,
  name: string,
  configured: HealthCheckConfig,
): Promise<{ store: KintsugiStore; evaluated: Evaluated[] }> {
  for (let n = 1; n <= WORKERS; n++) kube.setNodeCondition(`worker${n}`, "Ready", "True", new Date(START - 60 * MINUTE));
  const store = await openSqliteStore({ path: join(dir, `${name}.db`), initialConstraints: { maximumRepairQueueEntries: 10 } });
  const runner = new HealthCheckRunner({
    checks: [configured],
    repair: REPAIR,
    nodes: KubeNodeOperator.fromKubeconfig(kube.kubeconfigPath, 10),
    machines: null,
    store,
    now: () => clock.now,
    log,
    intervalMs: 3_600_000,
    changed: () => undefined,
  });
  const evaluated: Evaluated[] = [];
  for (const [i, changes] of SCRIPT.entries()) {
    clock.now = START + i * MINUTE;
    for (const [n, ready] of changes) {
      const since = ready === "pending" ? clock.now : clock.now - 10 * MINUTE;
      kube.setNodeCondition(`worker${n}`, "Ready", ready === "pending" ? "False" : ready, new Date(since));
      if (ready === "True")
        for (const e of store.entries.list()) if (e.address === address(n)) await store.entries.dequeue(e.index, () => "recovered", clock.now, "test");
    }
    const before = new Set(store.entries.list().map((e) => e.address));
    await runner.evaluateNow();
    const status = runner.list()[0];
    assert.equal(status?.error, null, status?.error ?? "");
    const evaluation = status?.evaluation;
    const unhealthy = evaluation?.targets.filter((t) => t.state === "unhealthy") ?? [];
    if (!evaluation || unhealthy.length === 0) continue;
    const enqueued = store.entries
      .list()
      .map((e) => e.address)
      .filter((a) => !before.has(a));
    const held = new Map(status.held.map((h) => [h.node, h.reason]));
    const fates = new Map<string, TargetFate>(
      unhealthy.map((t) => [
        t.node,
        enqueued.includes(t.address ?? "")
          ? "enqueued"
          : !evaluation.gate.open
            ? "short_circuited"
            : before.has(t.address ?? "")
              ? "recently_repaired"
              : held.get(t.node)?.startsWith("too many")
                ? "queue_limit"
                : "held",
      ]),
    );
    evaluated.push({ time: clock.now, enqueued, shortCircuited: !evaluation.gate.open, fates });
  }
  await runner.stop();
  return { store, evaluated };
}

describe("what-if replay of a health check against a second live run (fake Kubernetes API over HTTPS, real runner, real SQLite)", () => {
  let kube: FakeKubeApi;
  const dir = tempDir();
  const clock = { now: START };
  let recorded: Awaited<ReturnType<typeof liveRun>>;
  let other: Awaited<ReturnType<typeof liveRun>>;
  let records: readonly RemediationRecord[];

  before(async () => {
    kube = await startFakeKubeApi();
    for (let n = 1; n <= WORKERS; n++) kube.addNode({ name: `worker${n}`, internalIP: address(n), labels: { role: "worker", "machine-type": "m" } });
    recorded = await liveRun(kube, clock, dir.path, "recorded", RECORDED);
    other = await liveRun(kube, clock, dir.path, "other", OTHER);
    const read = await readRemediationRecords(recorded.store.pollRecords);
    assert.equal(read.unreadable, 0);
    records = read.records;
  });
  after(async () => {
    await recorded?.store.close();
    await other?.store.close();
    await kube?.close();
    dir.remove();
  });

  const replay = (maxUnhealthy: HealthCheckConfig["maxUnhealthy"] | null) =>
    replayAutoRepair(
      { polls: [], remediations: records },
      { constraints: {}, repairSeconds: 86_400, ...(maxUnhealthy && { healthChecks: new Map([["workers", { maxUnhealthy }]]) }) },
      { checks: new Map([["workers", RECORDED]]), repair: REPAIR },
    );

  it("records every evaluation that found an unhealthy target, in its own write, with the pending ones counted", () => {
    assert.deepEqual(
      records.map((r) => r.time),
      recorded.evaluated.map((e) => e.time),
    );
    assert.deepEqual(
      records.map((r) => r.enqueued),
      recorded.evaluated.map((e) => e.enqueued),
    );
    assert.ok(
      records.some((r) => r.pending > 0),
      "the script has a pending target counted against maxUnhealthy",
    );
  });

  it("replayed with the recorded maxUnhealthy, finds no difference", () => {
    assert.deepEqual(replay(null).polls, []);
    assert.deepEqual(replay(RECORDED.maxUnhealthy).polls, []);
  });

  it("replayed with another maxUnhealthy, differs evaluation by evaluation exactly as the live run with it did", () => {
    const queueBefore = recorded.store.entries.list();
    const report = replay(OTHER.maxUnhealthy);
    assert.deepEqual(recorded.store.entries.list(), queueBefore, "the replay never touches the live queue");
    assert.equal(other.evaluated.length, recorded.evaluated.length, "both runs found unhealthy targets at the same evaluations");
    const expected = recorded.evaluated.flatMap((was, i) => {
      const would = other.evaluated[i] as Evaluated;
      assert.equal(would.time, was.time);
      const differences = [...would.fates]
        .filter(([node, fate]) => was.fates.get(node) !== fate)
        .map(([node, fate]) => `${node}:${was.fates.get(node)}->${fate}`)
        .sort();
      const short = [was.shortCircuited, would.shortCircuited];
      return differences.length > 0 || short[0] !== short[1] ? [{ time: was.time, simulated: would.enqueued, short, differences }] : [];
    });
    const replayed = report.polls.map((p) => ({
      time: p.time,
      simulated: p.simulated.enqueued,
      short: [p.live.shortCircuited, p.simulated.shortCircuited],
      differences: p.targets.map((d) => `${d.node}:${d.live}->${d.simulated}`).sort(),
    }));
    assert.ok(expected.length >= 2, `the script makes a difference in several evaluations (${expected.length})`);
    assert.deepEqual(replayed, expected);
    assert.ok(report.polls.every((p) => p.source.kind === "health-check" && p.source.check === "workers"));
    assert.equal(
      report.enqueuedSimulated,
      other.evaluated.reduce((n, e) => n + e.enqueued.length, 0),
    );
  });
});
