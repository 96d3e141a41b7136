import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../src/domain/queue/repair-config.js";
import { replicaHealth, startEtcdReplicas, untilOneLeads } from "../support/etcd-replicas.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { runCliInProcess } from "../support/in-process-cli.js";
import type { TestKintsugi } from "../support/kintsugi-server.js";
import { tempDir } from "../support/temp-dir.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until } from "../support/until.js";
import { subscribe } from "../support/ws-subscriber.js";

interface EntryEvent {
  repairEntryEvents: { kind: string; entry: { index: string; status: string }; record: { sequence: string } };
}

const NAMES = ["replica-a", "replica-b", "replica-c"] as const;

/** One repair operation whose command names the replica that ran it, so the test can tell who repaired. */
function repairFor(machines: SimulatedMachines, replica: string): RepairConfig {
  const fix = stepOf(machines, "fix", { arg: replica, watchSeconds: 0 });
  return {
    ...EMPTY_REPAIR_CONFIG,
    maxConcurrentRepairs: 3,
    repairProcedures: [{ machineTypes: ["qemu"], repairOperations: [operationOf(machines, [fix], { operation: "unreachable" })] }],
  };
}

describe("three replicas on one etcd", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let dir: ReturnType<typeof tempDir>;
  let machines: SimulatedMachines;
  let replicas: TestKintsugi[] = [];

  before(async () => {
    etcd = await startTestEtcd();
    dir = tempDir();
    machines = new SimulatedMachines(dir.path);
    replicas = await startEtcdReplicas(etcd, NAMES, { prefix: "/replicas-e2e/", leaseTtlSeconds: 3, repair: (name) => repairFor(machines, name) });
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.dispose()));
    dir?.remove();
    await etcd?.stop();
  });

  it("elects one leader that every replica names; all are healthy", async () => {
    const healths = await until(
      "one leader that all replicas name",
      () => Promise.all(replicas.map((r) => replicaHealth(r.url))),
      (hs) => hs.filter((h) => h.leader).length === 1 && hs.every((h) => h.leaderName !== null && h.leaderName === hs.find((x) => x.leader)?.replica),
    );
    for (const h of healths) {
      // 200 on followers too: deploy/kubernetes's readiness probe keeps every replica in the Service on it.
      assert.equal(h.code, 200, `${h.replica} (leader: ${h.leader})`);
      assert.equal(h.status, "ok");
      assert.equal(h.store, "etcd");
    }
    const scrapes = await Promise.all(replicas.map(async (r) => (await (await fetch(`${r.url}/metrics`)).text()).split("\n")));
    const metrics = scrapes.map((lines) => lines.find((l) => l.startsWith("kintsugi_leader ")));
    assert.deepEqual([...metrics].sort(), ["kintsugi_leader 0", "kintsugi_leader 0", "kintsugi_leader 1"]);
    // As CKE's (metrics/collector.go): the queue's gauges come from the leader only, so a sum over replicas counts once.
    const servesQueue = scrapes.map((lines) => lines.some((l) => l.startsWith("kintsugi_repair_queue_items{")));
    assert.deepEqual(
      servesQueue,
      metrics.map((m) => m === "kintsugi_leader 1"),
    );
  });

  it("a mutation sent to a follower reaches a subscriber on another follower once, in order, and only the leader repairs", async () => {
    const { healths, leaderAt } = await untilOneLeads(replicas.map((r) => r.url));
    const [first, second] = replicas.filter((_, i) => i !== leaderAt) as [TestKintsugi, TestKintsugi];
    const leaderName = healths[leaderAt]?.replica as string;
    const subscriber = subscribe<EntryEvent>(second.url, "subscription { repairEntryEvents { kind entry { index status } record { sequence } } }");
    await subscriber.ready;
    try {
      const added = await first.gql<{ addRepairEntry: { index: string } }>(
        `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.7.0.1") { index } }`,
      );
      assert.equal(added.errors, undefined, JSON.stringify(added.errors));
      const index = added.data?.addRepairEntry.index;
      const events = await until(
        "the subscriber saw the entry succeed",
        () => subscriber.received.filter((e) => e.repairEntryEvents.entry.index === index),
        (es) => es.some((e) => e.repairEntryEvents.entry.status === "SUCCEEDED"),
      );
      assert.equal(events.filter((e) => e.repairEntryEvents.kind === "CREATED").length, 1, "created once");
      const sequences = events.map((e) => Number(e.repairEntryEvents.record.sequence));
      assert.deepEqual(
        sequences,
        [...new Set(sequences)].sort((a, b) => a - b),
        "each record once, in order",
      );
      // Read from etcd itself with the configured deadline: asked again when a loaded machine makes it time out.
      const history = await until(
        "the history answers",
        () => second.gql<{ repairHistory: Array<{ sequence: string }> }>(`query($i: ID!) { repairHistory(index: $i) { sequence } }`, { i: index }),
        (h) => h.errors === undefined,
      );
      assert.deepEqual(
        sequences,
        history.data?.repairHistory.map((r) => Number(r.sequence)),
        "every record of the history, none missing",
      );
      const fixes = machines.log().filter((l) => l.startsWith("fix "));
      assert.equal(fixes.length, 1, `the repair command ran once: ${fixes.join(", ")}`);
      // A loaded machine may let the lease lapse meanwhile: then the replica that leads since ran it.
      if (fixes[0] !== `fix ${leaderName} 10.7.0.1`) {
        const now = await untilOneLeads(replicas.map((r) => r.url));
        assert.equal(fixes[0], `fix ${now.healths[now.leaderAt]?.replica as string} 10.7.0.1`, "a replica that was not the leader ran it");
      }
    } finally {
      await subscriber.close();
    }
  });

  it("repair-queue list is the same from every replica", async () => {
    await replicas[0]?.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.7.0.2") { index } }`);
    const lists = await until(
      "every replica lists the same queue",
      () => Promise.all(replicas.map(async (r) => (await runCliInProcess(["--server", r.url, "repair-queue", "list"])).stdout)),
      (ls) => ls.every((l) => l === ls[0]) && (JSON.parse(ls[0] ?? "null") as unknown[] | null)?.length === 2,
    );
    assert.equal((JSON.parse(lists[0] ?? "[]") as Array<{ address: string }>).map((e) => e.address).join(","), "10.7.0.1,10.7.0.2");
  });

  it("a leader-only field on a follower says which replica leads", async () => {
    const { healths, leaderAt } = await untilOneLeads(replicas.map((r) => r.url));
    const follower = replicas[(leaderAt + 1) % replicas.length] as TestKintsugi;
    const leaderName = healths[leaderAt]?.replica;
    const res = await follower.gql(`mutation { runAutoRepair { machinesSeen } }`);
    assert.equal(res.errors?.[0]?.extensions?.type, "NOT_LEADER");
    assert.match(res.errors?.[0]?.message ?? "", new RegExp(`the leader is "${leaderName}"`));
  });

  it("a hold set on a follower is listed by every replica and keeps the leader from repairing; a release on another follower lets it", async () => {
    const { leaderAt } = await untilOneLeads(replicas.map((r) => r.url));
    const [first, second] = replicas.filter((_, i) => i !== leaderAt) as [TestKintsugi, TestKintsugi];
    const held = await first.gql(`mutation { holdMachine(address: "10.7.0.9", reason: "on a follower") { setBy source } }`);
    assert.deepEqual([held.errors, held.data?.["holdMachine"]], [undefined, { setBy: "anonymous", source: "API" }]);
    for (const r of replicas) {
      await until(
        "every replica lists the hold",
        async () => (await r.gql(`{ machineHolds { address reason } }`)).data?.["machineHolds"],
        (hs) => hs.length === 1 && hs[0].reason === "on a follower",
      );
    }
    const added = await second.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.7.0.9") { index } }`);
    const index = added.data?.["addRepairEntry"].index as string;
    const entry = async () => (await second.gql(`query($i: ID!) { repairEntry(index: $i) { status waitReason } }`, { i: index })).data?.["repairEntry"];
    // The waiting reason is the leader's: ask it there.
    const leader = replicas[leaderAt] as TestKintsugi;
    await until(
      "the leader says the entry is held",
      async () => (await leader.gql(`query($i: ID!) { repairEntry(index: $i) { waitReason } }`, { i: index })).data?.["repairEntry"].waitReason,
      (w) => w === "held by anonymous: on a follower",
    );
    assert.equal((await entry()).status, "QUEUED");
    const released = await second.gql(`mutation { releaseMachine(address: "10.7.0.9") { address } }`);
    assert.equal(released.errors, undefined, JSON.stringify(released.errors));
    await until("the entry succeeds once released", entry, (e) => e.status === "SUCCEEDED");
    assert.equal(machines.log().filter((l) => l.startsWith("fix ") && l.endsWith(" 10.7.0.9")).length, 1, "repaired once, after the release");
  });

  it("every replica answers the same waitingFor as the leader, which publishes it", async () => {
    const { leaderAt } = await untilOneLeads(replicas.map((r) => r.url));
    const follower = replicas[(leaderAt + 1) % replicas.length] as TestKintsugi;
    await follower.gql(`mutation { setRepairQueueEnabled(enabled: false) }`);
    try {
      for (let i = 0; i < 2; i++)
        await follower.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.7.0.3") { index } }`);
      const query = `{ searchRepairEntries { address waitingFor { kind message until domain entryIndex } } }`;
      type Answer = { searchRepairEntries: Array<{ address: string; waitingFor: { kind: string; entryIndex: number | null } | null }> };
      const waits = async (r: TestKintsugi) =>
        (await r.gql<Answer>(query)).data?.searchRepairEntries.filter((e) => e.address === "10.7.0.3").map((e) => e.waitingFor) ?? [];
      const answers = await until(
        "every replica answers both entries' waits as the leader does",
        () => Promise.all(replicas.map(waits)),
        (as) =>
          as.every((a) => JSON.stringify(a) === JSON.stringify(as[leaderAt])) && as[leaderAt]?.length === 2 && as[leaderAt]?.every((w) => w !== null) === true,
      );
      assert.deepEqual(
        answers[leaderAt]?.map((w) => w?.kind),
        ["QUEUE_DISABLED", "MACHINE_BUSY"],
      );
      assert.deepEqual(answers[(leaderAt + 2) % replicas.length], answers[leaderAt]);
    } finally {
      await follower.gql(`mutation { setRepairQueueEnabled(enabled: true) }`);
    }
  });
});
