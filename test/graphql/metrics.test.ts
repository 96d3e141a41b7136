import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { NOW } from "../support/fixtures.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { until } from "../support/until.js";
import { subscribe } from "../support/ws-subscriber.js";
import { withSideStore } from "../support/side-store.js";
import { parsePrometheus, sampleValue as value } from "../support/prometheus-text.js";
import { KintsugiMetrics, MAX_PACING_LABEL_LENGTH, MAX_PACING_SERIES } from "../../src/graphql/metrics.js";
import type { DomainPacing } from "../../src/domain/pacing/repair-pacing-report.js";
import type { PublishedWait } from "../../src/domain/queue/published-waits.js";

describe("GET /metrics", () => {
  let k: TestKintsugi;
  let sabakan: FakeSabakan;
  const scrape = async () => {
    const res = await fetch(`${k.url}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    return parsePrometheus(await res.text());
  };

  before(async () => {
    sabakan = await startFakeSabakan();
    k = await startTestKintsugi(
      { sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 2, maxResponseBytes: 1 << 20 } },
      { now: () => NOW, startSchedule: false },
    );
  });
  after(async () => {
    await k.dispose();
    await sabakan.close();
  });

  it("reports every status, even at zero, on an empty queue", async () => {
    const { samples, types } = await scrape();
    for (const status of ["queued", "processing", "succeeded", "failed"]) assert.equal(value(samples, "kintsugi_repair_queue_items", { status }), 0, status);
    assert.equal(value(samples, "kintsugi_repair_queue_enabled"), 1);
    assert.equal(value(samples, "kintsugi_auto_repair_enabled"), 1);
    assert.equal(types.get("kintsugi_repair_duration_seconds"), "histogram");
    assert.equal(types.get("kintsugi_auto_repair_poll_errors_total"), "counter");
  });

  it("matches the queue: items by status, one series per entry, each machine's status", async () => {
    for (const a of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) {
      await k.gql(`mutation($a: IPAddress!) { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: $a) { index } }`, { a });
    }
    await withSideStore(k, async (side) => {
      await side.transition(2, { status: "failed" });
      await side.transition(3, { status: "processing", step: 0 });
    });
    await k.gql(`mutation { setRepairQueueEnabled(enabled: false) }`);
    const { samples } = await scrape();
    assert.deepEqual(
      ["queued", "processing", "succeeded", "failed"].map((status) => value(samples, "kintsugi_repair_queue_items", { status })),
      [1, 1, 0, 1],
    );
    assert.deepEqual(
      samples.filter((s) => s.name === "kintsugi_repair_queue_entries").map((s) => s.labels),
      [
        { index: "1", address: "10.0.0.1", operation: "unhealthy", status: "queued", step: "0" },
        { index: "2", address: "10.0.0.2", operation: "unhealthy", status: "failed", step: "0" },
        { index: "3", address: "10.0.0.3", operation: "unhealthy", status: "processing", step: "0" },
      ],
    );
    assert.equal(value(samples, "kintsugi_machine_repair_status", { address: "10.0.0.2", status: "failed" }), 1);
    assert.equal(value(samples, "kintsugi_machine_repair_status", { address: "10.0.0.2", status: "queued" }), 0);
    assert.equal(value(samples, "kintsugi_repair_queue_enabled"), 0);
    await k.gql(`mutation { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: "10.0.0.2") { index } }`);
    const again = (await scrape()).samples;
    assert.deepEqual(
      ["queued", "processing", "succeeded", "failed"].map((status) => value(again, "kintsugi_machine_repair_status", { address: "10.0.0.2", status })),
      [1, 0, 0, 1],
      "as CKE: 1 for each status any entry of the machine has",
    );
    await k.gql(`mutation { setRepairQueueEnabled(enabled: true) }`);
  });

  it("counts failed polls and times every poll", async () => {
    sabakan.failWithStatus(500);
    await k.gql(`mutation { runAutoRepair { error } }`);
    await k.gql(`mutation { runAutoRepair { error } }`);
    const { samples } = await scrape();
    assert.equal(value(samples, "kintsugi_auto_repair_poll_errors_total"), 1);
    assert.equal(value(samples, "kintsugi_auto_repair_poll_duration_seconds_count", { result: "error" }), 1);
    assert.equal(value(samples, "kintsugi_auto_repair_poll_duration_seconds_count", { result: "ok" }), 1);
  });

  it("counts open subscriptions by topic, and a client that goes away on a quiet topic stops counting at once", async () => {
    const topics = ["repairEntryEvents", "machineStateChanged", "autoRepairOutcomes", "healthCheckEvents", "clusterGenerated", "machineHoldEvents"];
    const zeros = Object.fromEntries(topics.map((topic) => [topic, 0]));
    const counts = async () => {
      const { samples } = await scrape();
      return Object.fromEntries(topics.map((topic) => [topic, value(samples, "kintsugi_subscriptions", { topic })]));
    };
    assert.deepEqual(await counts(), zeros, "every topic is reported, at 0");
    // No event comes on these topics while the clients come and go.
    const quiet = [
      subscribe(k.url, "subscription { clusterGenerated { sequence } }"),
      subscribe(k.url, "subscription { clusterGenerated { sequence } }"),
      subscribe(k.url, "subscription { machineStateChanged { serial } }"),
    ];
    const untilCounts = (want: Record<string, number>) =>
      until(`the server counts the subscriptions ${JSON.stringify(want)}`, counts, (got) => Object.entries(want).every(([t, n]) => got[t] === n), 10_000);
    try {
      await Promise.all(quiet.map((q) => q.ready));
      await untilCounts({ clusterGenerated: 2, machineStateChanged: 1 });
    } finally {
      await Promise.all(quiet.map((q) => q.close()));
    }
    await untilCounts({ clusterGenerated: 0, machineStateChanged: 0 });
  });

  it("reports cluster generation as CKE's sabakan metrics do: success, generation, workers and unused machines by role", async () => {
    const before = await scrape();
    assert.equal(value(before.samples, "kintsugi_sabakan_integration_successful"), 0, "no round yet");
    assert.equal(value(before.samples, "kintsugi_sabakan_generation"), 0);
    assert.equal(value(before.samples, "kintsugi_sabakan_integration_timestamp_seconds"), 0, "no round yet: 0, as CKE's gauge before its first update");
    for (let i = 1; i <= 4; i++) sabakan.addMachine({ serial: `cs${i}`, rack: i, role: "cs", ipv4: [`10.5.${i}.1`] });
    for (let i = 1; i <= 3; i++) sabakan.addMachine({ serial: `ss${i}`, rack: i, role: "ss", ipv4: [`10.6.${i}.1`] });
    const template = `name: c
nodes:
- user: u
  control_plane: true
  labels: { cke.cybozu.com/role: cs }
- user: u
  labels: { cke.cybozu.com/role: cs }
- user: u
  labels: { cke.cybozu.com/role: ss }
service_subnet: 10.68.0.0/16
`;
    await k.gql(`mutation ($t: String!) { setClusterTemplate(template: $t) { name } }`, { t: template });
    await k.gql(`mutation { setConstraint(name: "minimum-workers", value: 2) { minimumWorkers } }`);
    let outcome = "";
    for (let i = 0; i < 5 && outcome !== "UNCHANGED"; i++)
      outcome = (await k.gql(`mutation { runClusterGeneration { outcome } }`)).data?.["runClusterGeneration"].outcome;
    const { samples } = await scrape();
    assert.equal(value(samples, "kintsugi_sabakan_integration_successful"), 1);
    const succeededAt = value(samples, "kintsugi_sabakan_integration_timestamp_seconds") ?? 0;
    assert.equal(succeededAt, Math.floor(NOW / 1000), "the latest round's time in whole seconds (CKE sets ts.Unix()), by kintsugi's clock");
    assert.ok((value(samples, "kintsugi_sabakan_generation") ?? 0) >= 1);
    assert.equal(value(samples, "kintsugi_sabakan_workers", { role: "cs" }), 1);
    assert.equal(value(samples, "kintsugi_sabakan_workers", { role: "ss" }), 1);
    assert.equal(value(samples, "kintsugi_sabakan_unused_machines", { role: "cs" }), 2, "4 cs machines: a control plane and a worker use two");
    assert.equal(value(samples, "kintsugi_sabakan_unused_machines", { role: "ss" }), 2);
    const nodeStatuses = samples.filter((s) => s.name === "kintsugi_machine_repair_status" && /^10\.[56]\./.test(s.labels["address"] ?? ""));
    assert.equal(nodeStatuses.length, 3 * 4, "as CKE: every node of the cluster, with no entry, has its four statuses");
    assert.ok(
      nodeStatuses.every((s) => s.value === 0),
      "all at 0",
    );
    // CKE's integrate.go: a sabakan that cannot be asked sets nothing; a generator that fails sets 0 (and the time).
    sabakan.failWithStatus(500);
    assert.equal((await k.gql(`mutation { runClusterGeneration { outcome } }`)).data?.["runClusterGeneration"].outcome, "FAILED");
    const afterOutage = (await scrape()).samples;
    assert.equal(value(afterOutage, "kintsugi_sabakan_integration_successful"), 1, "sabakan answered 500: unchanged");
    await k.gql(`mutation { setConstraint(name: "control-plane-count", value: 9) { controlPlaneCount } }`);
    assert.equal((await k.gql(`mutation { runClusterGeneration { outcome } }`)).data?.["runClusterGeneration"].outcome, "FAILED");
    const afterFailure = (await scrape()).samples;
    assert.equal(value(afterFailure, "kintsugi_sabakan_integration_successful"), 0, "no configuration satisfies the constraints");
    assert.equal(value(afterFailure, "kintsugi_sabakan_integration_timestamp_seconds"), succeededAt, "a failed round sets the time too, as CKE's does");
    await k.gql(`mutation { setClusterGenerationEnabled(enabled: false) }`);
    const disabled = (await scrape()).samples.map((x) => x.name);
    for (const name of ["kintsugi_sabakan_integration_successful", "kintsugi_sabakan_integration_timestamp_seconds", "kintsugi_sabakan_workers"]) {
      assert.ok(!disabled.includes(name), `${name} is not served while generation is disabled, as CKE's`);
    }
    assert.ok(disabled.includes("kintsugi_sabakan_generation"), "the configuration in force still is");
    await k.gql(`mutation { setClusterGenerationEnabled(enabled: true) }`);
    await k.gql(`mutation { setConstraint(name: "control-plane-count", value: 1) { controlPlaneCount } }`);
  });
});

describe("a follower serves no gauge of the shared store, as CKE's followers (metrics/collector.go)", () => {
  const LEADER_ONLY = [
    "kintsugi_repair_queue_enabled",
    "kintsugi_auto_repair_enabled",
    "kintsugi_repair_queue_items",
    "kintsugi_auto_repair_held_machines",
    "kintsugi_auto_repair_skipped_machines",
    "kintsugi_sabakan_generation",
    "kintsugi_sabakan_integration_successful",
    "kintsugi_sabakan_integration_timestamp_seconds",
  ];
  for (const leader of [true, false]) {
    it(leader ? "the leader serves them" : "a follower serves only kintsugi_leader 0 and its own observations", async () => {
      const metrics = new KintsugiMetrics({
        entries: () => [],
        repairQueueEnabled: () => true,
        autoRepairEnabled: () => true,
        now: () => NOW,
        isLeader: () => leader,
        clusterGeneration: () => ({ current: null, latest: null }),
        integrationVerdict: () => ({ successful: true, at: NOW }),
      });
      const { samples } = parsePrometheus((await metrics.text()).body);
      const names = new Set(samples.map((x) => x.name));
      for (const name of LEADER_ONLY) assert.equal(names.has(name), leader, name);
      assert.equal(value(samples, "kintsugi_leader"), leader ? 1 : 0);
      assert.ok(names.has("kintsugi_auto_repair_poll_errors_total"), "what this process observed is served by every replica");
    });
  }
});

describe("kintsugi_repair_pacing_allowance: bounded whatever sabakan names", () => {
  const domain = (value: string): DomainPacing => ({ domain: "machine_type", value, allowance: 2, lastChange: null, inProgress: 0 });
  const series = async (domains: DomainPacing[]) => {
    const metrics = new KintsugiMetrics({
      entries: () => [],
      repairQueueEnabled: () => true,
      autoRepairEnabled: () => true,
      now: () => NOW,
      repairPacing: () => domains,
    });
    return parsePrometheus((await metrics.text()).body).samples.filter((s) => s.name === "kintsugi_repair_pacing_allowance");
  };

  it(`exports at most ${MAX_PACING_SERIES} series`, async () => {
    const got = await series(Array.from({ length: MAX_PACING_SERIES + 5 }, (_, i) => domain(`type-${String(i).padStart(4, "0")}`)));
    assert.equal(got.length, MAX_PACING_SERIES);
    assert.equal(got.at(-1)?.labels["value"], `type-${String(MAX_PACING_SERIES - 1).padStart(4, "0")}`);
  });

  it(`leaves out a value longer than ${MAX_PACING_LABEL_LENGTH} characters, and escapes what it exports`, async () => {
    const got = await series([domain("x".repeat(MAX_PACING_LABEL_LENGTH + 1)), domain("x".repeat(MAX_PACING_LABEL_LENGTH)), domain('a"b\nc')]);
    assert.deepEqual(
      got.map((s) => s.labels["value"]),
      ["x".repeat(MAX_PACING_LABEL_LENGTH), 'a\\"b\\nc'],
      "one line per series, the quote and newline escaped",
    );
  });
});

describe("kintsugi_repair_entries_waiting_for_each_other", () => {
  const wait = (index: number, entryIndex?: number): PublishedWait => ({
    index,
    kind: "CONTROL_PLANE",
    message: "control plane is not Ready",
    until: null,
    domain: null,
    ...(entryIndex !== undefined && { entryIndex }),
  });
  const CASES: Array<{ name: string; waits: PublishedWait[]; want: number }> = [
    { name: "no waits: 0", waits: [], want: 0 },
    { name: "one entry waiting for the control plane in progress: 0", waits: [wait(1), wait(2, 1)], want: 0 },
    { name: "two control planes both not Ready, each entry naming the other: 2", waits: [wait(1, 2), wait(2, 1), wait(3, 1)], want: 2 },
  ];
  for (const c of CASES) {
    it(c.name, async () => {
      const metrics = new KintsugiMetrics({
        entries: () => [],
        repairQueueEnabled: () => true,
        autoRepairEnabled: () => true,
        now: () => NOW,
        repairWaits: () => c.waits,
      });
      assert.equal(value(parsePrometheus((await metrics.text()).body).samples, "kintsugi_repair_entries_waiting_for_each_other"), c.want);
    });
  }
});
