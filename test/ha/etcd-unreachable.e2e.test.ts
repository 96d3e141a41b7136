import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../src/domain/queue/repair-config.js";
import { replicaHealth, startEtcdReplicas, untilOneLeads } from "../support/etcd-replicas.js";
import type { TestKintsugi } from "../support/kintsugi-server.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { tempDir } from "../support/temp-dir.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until } from "../support/until.js";

const HELD = "10.9.0.1";
const QUEUED = "10.9.0.2";

/**
 * One repair at a time; machines of type "held" run a command that waits until released, the others one that fixes
 * at once: a held entry keeps the other queued until the test lets the queue move.
 */
function oneAtATime(machines: SimulatedMachines): RepairConfig {
  // The held command outlives the outage's start; once etcd is back, a new leader waits it out (its timeout and the
  // margin past its start) unless it is the replica that saw it end: short enough for the test to wait.
  const procedure = (type: string, action: string) => ({
    machineTypes: [type],
    repairOperations: [operationOf(machines, [stepOf(machines, action, { commandTimeoutSeconds: 12, watchSeconds: 0 })], { operation: "unreachable" })],
  });
  return { ...EMPTY_REPAIR_CONFIG, maxConcurrentRepairs: 1, repairProcedures: [procedure("held", "held-fix"), procedure("qemu", "fix")] };
}

async function leaderMetric(url: string): Promise<string | undefined> {
  return (await (await fetch(`${url}/metrics`)).text()).split("\n").find((l) => l.startsWith("kintsugi_leader "));
}

async function addresses(r: TestKintsugi): Promise<string[]> {
  const res = await r.gql<{ searchRepairEntries: Array<{ address: string }> }>(`query { searchRepairEntries { address } }`);
  assert.equal(res.errors, undefined, JSON.stringify(res.errors));
  return (res.data?.searchRepairEntries ?? []).map((e) => e.address).sort();
}

async function statusOf(r: TestKintsugi, address: string): Promise<string | undefined> {
  const res = await r.gql<{ searchRepairEntries: Array<{ address: string; status: string }> }>(`query { searchRepairEntries { address status } }`);
  return res.data?.searchRepairEntries.find((e) => e.address === address)?.status;
}

describe("etcd unreachable", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let dir: ReturnType<typeof tempDir>;
  let machines: SimulatedMachines;
  let replicas: TestKintsugi[] = [];

  before(async () => {
    etcd = await startTestEtcd();
    dir = tempDir();
    machines = new SimulatedMachines(dir.path);
    replicas = await startEtcdReplicas(etcd, ["replica-a", "replica-b"], {
      prefix: "/unreachable-e2e/",
      leaseTtlSeconds: 2,
      etcd: { timeoutMs: 1000 },
      inheritedCommandMarginSeconds: 6,
      repair: () => oneAtATime(machines),
    });
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.dispose()));
    dir?.remove();
    await etcd?.stop();
  });

  it("reads answer from the mirror, writes say STORE_UNAVAILABLE, /health 503, nobody leads or repairs; all resumes when etcd returns", async () => {
    const [a, b] = replicas as [TestKintsugi, TestKintsugi];
    await untilOneLeads(replicas.map((r) => r.url));
    for (const [address, type] of [
      [HELD, "held"],
      [QUEUED, "qemu"],
    ] as const) {
      const added = await a.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "${type}", address: "${address}") { index } }`);
      assert.equal(added.errors, undefined, JSON.stringify(added.errors));
    }
    await until(
      "the held entry's command runs and the other waits",
      async () => ({ running: machines.running(HELD), queued: await statusOf(b, QUEUED) }),
      (s) => s.running && s.queued === "QUEUED",
    );
    const repairCommands = () => machines.log().filter((l) => !l.startsWith("health "));
    const commandsBefore = repairCommands();

    await etcd.members[0]?.kill();
    // The held repair's effect is on the machine, which etcd's outage does not touch.
    machines.setHealthy(HELD);

    // Before any API write: a follower that writes nothing must find out too, and nobody names a leader it cannot confirm.
    for (const r of replicas) {
      const h = await until(
        "/health answers 503 on a replica that tried no write",
        () => replicaHealth(r.url),
        (x) => x.code === 503 && x.leaderName === null,
      );
      assert.match(h.reason ?? "", /etcd/);
    }
    for (const r of replicas) assert.deepEqual(await addresses(r), [HELD, QUEUED], "a read answers from what the replica has");
    const refused = await b.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.9.0.3") { index } }`);
    assert.equal(refused.errors?.[0]?.extensions?.type, "STORE_UNAVAILABLE", JSON.stringify(refused.errors));
    assert.match(refused.errors?.[0]?.message ?? "", new RegExp(`etcd at ${etcd.endpoints[0]} did not answer`));
    for (const r of replicas) {
      const h = await until(
        "/health answers 503",
        () => replicaHealth(r.url),
        (x) => x.code === 503,
      );
      assert.equal(h.status, "unhealthy");
      assert.match(h.reason ?? "", /etcd/);
    }
    for (const r of replicas) {
      await until(
        "no replica leads once the lease TTL has passed",
        () => replicaHealth(r.url),
        (x) => !x.leader,
      );
      assert.equal(await leaderMetric(r.url), "kintsugi_leader 0");
    }
    await until("the held command was stopped with its term", () => !machines.running(HELD));
    const logWithoutLeader = machines.log();
    // Were the command still alive, it could finish now; nothing else may run while no replica leads.
    machines.release(HELD);
    assert.deepEqual(await addresses(a), [HELD, QUEUED], "still answering reads");
    assert.deepEqual(await b.gql(`mutation { setRepairQueueEnabled(enabled: true) }`).then((r) => r.errors?.[0]?.extensions?.type), "STORE_UNAVAILABLE");
    assert.deepEqual(repairCommands(), commandsBefore, "no repair command ran while etcd was away");
    assert.deepEqual(machines.log(), logWithoutLeader, "no health check either once no replica led");

    await etcd.members[0]?.restart();
    for (const r of replicas)
      await until(
        "/health answers 200 again",
        () => replicaHealth(r.url),
        (x) => x.code === 200,
        30_000,
      );
    await untilOneLeads(
      replicas.map((r) => r.url),
      30_000,
    );
    await until(
      "the queued entry was repaired",
      () => statusOf(b, QUEUED),
      (s) => s === "SUCCEEDED",
      30_000,
    );
    // The entry finished on the leader before the queued one could start; a follower shows it once its watch has
    // delivered those commits, which under load can come after the leader's later ones are visible elsewhere.
    for (const r of replicas)
      await until(
        "the held entry finished by its health check, on every replica",
        () => statusOf(r, HELD),
        (s) => s === "SUCCEEDED",
        30_000,
      );
    assert.equal(machines.runs("held-fix", HELD), 1, "the held repair command was not run again");
    assert.equal(machines.runs("fix", QUEUED), 1);
  });

  it("a paused etcd (connections open, no answer): /health 503 with the reason on every replica, and nobody named leader", async () => {
    await untilOneLeads(
      replicas.map((r) => r.url),
      30_000,
    );
    etcd.members[0]?.pause();
    try {
      for (const r of replicas) {
        const h = await until(
          "/health answers 503 and names no leader",
          () => replicaHealth(r.url),
          (x) => x.code === 503 && x.leaderName === null && !x.leader,
        );
        assert.match(h.reason ?? "", /etcd .*did not answer/);
        assert.equal(await leaderMetric(r.url), "kintsugi_leader 0");
      }
    } finally {
      etcd.members[0]?.resume();
    }
    await untilOneLeads(
      replicas.map((r) => r.url),
      30_000,
    );
  });
});
