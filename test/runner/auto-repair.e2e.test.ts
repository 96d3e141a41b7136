import assert from "node:assert/strict";
import { after, before, beforeEach, describe, it } from "node:test";
import { startFakeKubeApi, type FakeKubeApi } from "../support/fake-kube-api.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import { until } from "../support/until.js";

const OUTCOME = `sequence trigger machinesSeen error
  enqueued { index address machineType operation serial status source history { kind reason actor } }
  skipped { serial address state reason kind held rack }
  shortCircuit { existingEntries candidates limit }`;

const MINUTE = 60_000;

describe("sabakan-triggered repair over HTTP (test sabakan built from sabakan's schema)", () => {
  let sabakan: FakeSabakan;
  let kube: FakeKubeApi;
  let k: TestKintsugi;
  let now = Date.UTC(2026, 10, 22, 6, 0, 0);
  const run = async () => (await k.gql(`mutation { runAutoRepair { ${OUTCOME} } }`)).data?.["runAutoRepair"];

  before(async () => {
    sabakan = await startFakeSabakan({ now: () => now });
    kube = await startFakeKubeApi();
    k = await startTestKintsugi(
      {
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 1, maxResponseBytes: 256 * 1024 },
        kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
        constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 600 },
      },
      // The runner dequeues what beforeEach deletes; sabakan's types are not in the test procedures, so
      // entries fail at once and nothing runs.
      { now: () => now, startSchedule: false, startRunner: true },
    );
  });
  after(async () => {
    await k.dispose();
    await kube.close();
    await sabakan.close();
  });
  beforeEach(async () => {
    sabakan.clearFaults();
    for (const m of sabakan.machines()) sabakan.setState(m.serial, "HEALTHY");
    await k.gql(`mutation { deleteUnfinishedRepairEntries { index } deleteFinishedRepairEntries { index } }`);
    await until(
      "the queue is empty",
      async () => (await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length === 0,
      Boolean,
      10_000,
    );
  });

  it("enqueues an unhealthy machine with the right fields and records the outcome", async () => {
    sabakan.addMachine({ serial: "a001", rack: 1, ipv4: ["10.1.0.1", "10.1.0.2"], bmcType: "IPMI-2.0", state: "UNHEALTHY", stateSince: now - 10 * MINUTE });
    sabakan.addMachine({ serial: "a002", rack: 1, ipv4: ["10.1.0.3"], state: "HEALTHY" });
    const outcome = await run();
    assert.equal(outcome.error, null);
    assert.equal(outcome.trigger, "operator");
    assert.equal(outcome.machinesSeen, 1, "sabakan filtered by the default variables");
    assert.equal(outcome.enqueued.length, 1);
    const e = outcome.enqueued[0];
    assert.deepEqual(
      { ...e, history: undefined, index: undefined },
      {
        index: undefined,
        address: "10.1.0.1",
        machineType: "IPMI-2.0",
        operation: "unhealthy",
        serial: "a001",
        status: "QUEUED",
        source: "sabakan",
        history: undefined,
      },
    );
    assert.match(e.history[0].reason, /enqueued by sabakan-triggered repair: machine a001 is UNHEALTHY \(for 600 s\)/);
    assert.equal(e.history[0].actor, "sabakan", "the trigger, as the entry's source names it");
    assert.deepEqual(sabakan.requests.at(-1)?.variables, { having: { states: ["UNHEALTHY", "UNREACHABLE"] }, notHaving: { roles: ["boot"] } });
    const listed = (await k.gql(`{ autoRepairOutcomes(last: 1) { sequence enqueued { serial } } }`)).data?.["autoRepairOutcomes"];
    assert.deepEqual(listed, [{ sequence: outcome.sequence, enqueued: [{ serial: "a001" }] }]);
  });

  it("does not enqueue a machine with a persisting entry again", async () => {
    sabakan.setState("a001", "UNHEALTHY");
    assert.equal((await run()).enqueued.length, 1);
    const second = await run();
    assert.deepEqual(second.enqueued, []);
    assert.deepEqual(second.skipped, [
      { serial: "a001", address: "10.1.0.1", state: "UNHEALTHY", reason: "recently repaired", kind: "RECENTLY_REPAIRED", held: false, rack: 1 },
    ]);
  });

  it("sends the operator's variables to sabakan, replacing the defaults whole", async () => {
    await k.gql(
      `mutation { setAutoRepairVariables(having: { racks: [7], states: [UNREACHABLE], labels: [{ name: "cluster", value: "stage0" }] }) { having { racks } } }`,
    );
    await run();
    assert.deepEqual(sabakan.requests.at(-1)?.variables, {
      having: { labels: [{ name: "cluster", value: "stage0" }], racks: [7], states: ["UNREACHABLE"] },
      notHaving: null,
    });
    await k.gql(`mutation { setAutoRepairVariables(having: { states: [UNHEALTHY, UNREACHABLE] }, notHaving: { roles: ["boot"] }) { having { racks } } }`);
  });

  it("waits for an UNREACHABLE machine that CKE is rebooting, or that is not a node, and repairs a node that is down", async () => {
    for (const [serial, ip] of [
      ["b001", "10.2.0.1"],
      ["b002", "10.2.0.2"],
      ["b003", "10.2.0.3"],
    ] as const) {
      sabakan.addMachine({ serial, rack: 2, ipv4: [ip], state: "UNREACHABLE", stateSince: now - 2 * MINUTE });
    }
    kube.addNode({ name: "rebooting-node", internalIP: "10.2.0.1", unschedulable: true, annotations: { "cke.cybozu.com/reboot": "true" } });
    kube.addNode({ name: "down-node", internalIP: "10.2.0.3" });
    const outcome = await run();
    const reasons = Object.fromEntries(outcome.skipped.map((s: { serial: string; reason: string }) => [s.serial, s.reason]));
    assert.equal(reasons["b001"], "rebooting");
    assert.equal(reasons["b002"], "out of cluster, may be rebooting");
    assert.deepEqual(
      outcome.skipped.map((s: { kind: string; held: boolean; rack: number }) => [s.kind, s.held, s.rack]),
      [
        ["REBOOTING", true, 2],
        ["OUT_OF_CLUSTER", true, 2],
      ],
    );
    assert.deepEqual(
      outcome.enqueued.map((e: { serial: string }) => e.serial),
      ["b003"],
    );
    now += 10 * MINUTE;
    const later = await run();
    assert.deepEqual(
      later.enqueued.map((e: { serial: string }) => e.serial),
      ["b001", "b002"],
      "after wait-seconds-to-repair-rebooting they are repaired",
    );
  });

  it("enqueues nothing past maximum-repair-queue-entries and says why", async () => {
    await k.gql(`mutation { setConstraint(name: "maximum-repair-queue-entries", value: 1) { maximumRepairQueueEntries } }`);
    sabakan.addMachine({ serial: "c001", rack: 3, ipv4: ["10.3.0.1"], state: "UNHEALTHY" });
    sabakan.addMachine({ serial: "c002", rack: 3, ipv4: ["10.3.0.2"], state: "UNHEALTHY" });
    const outcome = await run();
    assert.deepEqual(outcome.enqueued, [], "all or nothing: not even one of the two");
    assert.deepEqual(outcome.shortCircuit, { existingEntries: 0, candidates: 2, limit: 1 });
    assert.deepEqual(
      outcome.skipped.map((s: { reason: string }) => s.reason),
      ["too many repair requests", "too many repair requests"],
    );
    assert.deepEqual(
      outcome.skipped.map((s: { kind: string; held: boolean }) => [s.kind, s.held]),
      [
        ["QUEUE_LIMIT", true],
        ["QUEUE_LIMIT", true],
      ],
    );
    await k.gql(`mutation { setConstraint(name: "maximum-repair-queue-entries", value: 10) { maximumRepairQueueEntries } }`);
  });

  it("does not enqueue a machine whose Node carries the hold annotation, and enqueues it once the annotation is gone", async () => {
    sabakan.addMachine({ serial: "h001", rack: 4, ipv4: ["10.4.0.1"], state: "UNHEALTHY" });
    sabakan.addMachine({ serial: "h002", rack: 4, ipv4: ["10.4.0.2"], state: "UNHEALTHY" });
    kube.addNode({ name: "held-node", internalIP: "10.4.0.1", annotations: { "kintsugi.cybozu.io/hold": "disk vendor on site" } });
    const outcome = await run();
    assert.deepEqual(
      outcome.enqueued.map((e: { serial: string }) => e.serial),
      ["h002"],
    );
    assert.deepEqual(outcome.skipped, [
      {
        serial: "h001",
        address: "10.4.0.1",
        state: "UNHEALTHY",
        reason: "held by annotation kintsugi.cybozu.io/hold on Node held-node: disk vendor on site",
        kind: "HELD",
        held: false,
        rack: 4,
      },
    ]);
    kube.removeNode("held-node");
    const later = await run();
    assert.deepEqual(
      later.enqueued.map((e: { serial: string }) => e.serial),
      ["h001"],
    );
  });

  it("does not enqueue a machine held through the API (skip kind HELD, who and until), and enqueues it once the hold has ended", async () => {
    sabakan.addMachine({ serial: "h003", rack: 5, ipv4: ["10.5.0.1"], state: "UNHEALTHY" });
    const until = new Date(now + 60_000).toISOString();
    const held = await k.gql(`mutation($u: DateTime) { holdMachine(address: "10.5.0.1", reason: "bios update", until: $u) { until } }`, { u: until });
    assert.equal(held.errors, undefined, JSON.stringify(held.errors));
    const outcome = await run();
    assert.deepEqual(outcome.skipped, [
      { serial: "h003", address: "10.5.0.1", state: "UNHEALTHY", reason: `held by anonymous: bios update until ${until}`, kind: "HELD", held: false, rack: 5 },
    ]);
    assert.deepEqual(outcome.enqueued, []);
    now += 60_000;
    const later = await run();
    assert.deepEqual(
      later.enqueued.map((e: { serial: string }) => e.serial),
      ["h003"],
    );
    sabakan.setState("h003", "HEALTHY");
  });

  let faultNumber = 0;
  const faults: Array<[string, (s: FakeSabakan) => void, RegExp]> = [
    ["HTTP 500", (s) => s.failWithStatus(500, "internal error"), /answered HTTP 500/],
    ["HTTP 422", (s) => s.failWithStatus(422, { errors: [{ message: "input: invalid" }] }), /answered HTTP 422 with errors: input: invalid/],
    ["errors[]", (s) => s.failWithErrors(["database is locked"]), /with errors: database is locked/],
    ["a slow answer", (s) => s.setLatency(3000), /no answer within 1 s/],
    ["malformed JSON", (s) => s.respondWith("{ not json"), /not valid JSON|answered HTTP 200/],
    ["an oversized answer", (s) => s.respondWithLargeBody(1024 * 1024), /larger than the 262144 bytes allowed/],
  ];
  for (const [name, inject, pattern] of faults) {
    it(`records ${name} as a failed poll, enqueues nothing, and polls normally next time`, async () => {
      const serial = `f-${++faultNumber}`;
      sabakan.addMachine({ serial, rack: 4, ipv4: [`10.4.0.${faultNumber}`], state: "UNHEALTHY" });
      const before = (await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length;
      inject(sabakan);
      const failed = await run();
      assert.match(failed.error ?? "", pattern);
      assert.deepEqual(failed.enqueued, []);
      assert.equal((await k.gql(`{ searchRepairEntries { index } }`)).data?.["searchRepairEntries"].length, before);
      const listed = (await k.gql(`{ autoRepairOutcomes(last: 1) { error } }`)).data?.["autoRepairOutcomes"];
      assert.match(listed[0].error, pattern);
      const next = await run();
      assert.equal(next.error, null);
      assert.deepEqual(
        next.enqueued.map((e: { serial: string }) => e.serial),
        [serial],
      );
    });
  }

  it("refuses to query sabakan while auto-repair is disabled", async () => {
    await k.gql(`mutation { setAutoRepairEnabled(enabled: false) }`);
    const count = sabakan.requests.length;
    const outcome = await run();
    assert.equal(outcome.error, "auto-repair is disabled; sabakan was not queried");
    assert.equal(sabakan.requests.length, count);
    await k.gql(`mutation { setAutoRepairEnabled(enabled: true) }`);
  });

  it("runs a poll from the CLI and prints its outcome", async () => {
    const res = await runCliInProcess(["--server", k.url, "auto-repair", "run"]);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(JSON.parse(res.stdout).error, null);
    sabakan.failWithStatus(503);
    const failed = await runCliInProcess(["--server", k.url, "auto-repair", "run"]);
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /auto-repair poll failed: .*answered HTTP 503/);
    const outcomes = await runCliInProcess(["--server", k.url, "auto-repair", "outcomes", "--last", "2"]);
    assert.equal(JSON.parse(outcomes.stdout).length, 2);
  });

  it("rejects a negative last", async () => {
    assert.equal((await k.gql(`{ autoRepairOutcomes(last: -1) { sequence } }`)).errors?.[0]?.extensions?.type, "INVALID_ARGUMENT");
  });
});

describe("the auto-repair schedule", () => {
  it("polls on the cron schedule, and not while auto-repair is disabled", async () => {
    const sabakan = await startFakeSabakan();
    const k = await startTestKintsugi({ sabakan: { url: sabakan.url, schedule: "* * * * * *", timeoutSeconds: 5, maxResponseBytes: 1 << 20 } });
    try {
      // Polls only: kintsugi also counts the fleet once at start.
      const polls = () => sabakan.requests.filter((r) => r.query?.includes("query SearchMachines")).length;
      await until("polled every second", () => polls() >= 2, Boolean, 10_000);
      const outcomes = (await k.gql(`{ autoRepairOutcomes { trigger error } }`)).data?.["autoRepairOutcomes"];
      assert.ok(outcomes.length >= 2 && outcomes.every((o: { trigger: string; error: null }) => o.trigger === "schedule" && o.error === null));
      await k.gql(`mutation { setAutoRepairEnabled(enabled: false) }`);
      // The schedule goes on and says so: each tick while disabled is counted instead of polling.
      const skipped = async () =>
        Number(/^kintsugi_auto_repair_ticks_skipped_total\{reason="disabled"\} (\d+)$/m.exec(await (await fetch(`${k.url}/metrics`)).text())?.[1] ?? 0);
      const first = await until("a tick is skipped while disabled", skipped, (n) => n >= 1);
      const count = sabakan.requests.length;
      await until("two more ticks are skipped", skipped, (n) => n >= first + 2);
      assert.equal(sabakan.requests.length, count, "no poll while disabled");
    } finally {
      await k.dispose();
      await sabakan.close();
    }
  });
});
