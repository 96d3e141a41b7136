import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Etcd3 } from "etcd3";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../../src/domain/queue/repair-config.js";
import { testEtcdClient } from "../support/etcd-clients.js";
import { replicaHealth, startEtcdReplicas, untilOneLeads } from "../support/etcd-replicas.js";
import type { TestKintsugi } from "../support/kintsugi-server.js";
import { SimulatedMachines } from "../support/machine-script.js";
import { operationOf, stepOf } from "../support/repair-world.js";
import { tempDir } from "../support/temp-dir.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until, untilTruthy } from "../support/until.js";

interface Entry {
  index: string;
  status: string;
  stepStatus: string;
}

const PREFIX = "/deposed-e2e/";
const ADDRESS = "10.8.0.1";

/** One step whose repair command waits until the test releases it, and a health check that reads the machine's file. */
function heldRepair(machines: SimulatedMachines): RepairConfig {
  // The successor waits the command out (its timeout and the margin past its start): short enough to wait here.
  const held = stepOf(machines, "held-fix", { commandTimeoutSeconds: 8, watchSeconds: 0 });
  return {
    ...EMPTY_REPAIR_CONFIG,
    maxConcurrentRepairs: 3,
    repairProcedures: [{ machineTypes: ["qemu"], repairOperations: [operationOf(machines, [held], { operation: "unreachable" })] }],
  };
}

/** Revokes, from outside, the lease of the election key that holds `replica`'s name: what etcd does to a paused leader. */
async function revokeLeaseOf(client: Etcd3, replica: string): Promise<void> {
  const res = await client.getAll().prefix(`${PREFIX}leader/`).exec();
  const kv = res.kvs.find((k) => k.value.toString() === replica);
  assert.ok(kv, `an election key of ${replica}`);
  assert.notEqual(kv.lease, "0", "the election key is attached to a lease");
  await client.leaseClient.leaseRevoke({ ID: kv.lease });
}

describe("a deposed leader (its lease revoked under it)", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let client: Etcd3;
  let dir: ReturnType<typeof tempDir>;
  let machines: SimulatedMachines;
  let replicas: TestKintsugi[] = [];

  before(async () => {
    etcd = await startTestEtcd();
    client = testEtcdClient(etcd.endpoints);
    dir = tempDir();
    machines = new SimulatedMachines(dir.path);
    replicas = await startEtcdReplicas(etcd, ["replica-a", "replica-b"], {
      prefix: PREFIX,
      leaseTtlSeconds: 30,
      inheritedCommandMarginSeconds: 6,
      repair: () => heldRepair(machines),
    });
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.dispose()));
    client?.close();
    dir?.remove();
    await etcd?.stop();
  });

  it("stops leading at once, aborts its running command, commits nothing; the next leader finishes the entry without running the command again", async () => {
    const { healths, leaderAt } = await untilOneLeads(replicas.map((r) => r.url));
    const [deposed, successor] = [replicas[leaderAt] as TestKintsugi, replicas[1 - leaderAt] as TestKintsugi];
    const deposedName = healths[leaderAt]?.replica as string;

    const added = await successor.gql<{ addRepairEntry: { index: string } }>(
      `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${ADDRESS}") { index } }`,
    );
    assert.equal(added.errors, undefined, JSON.stringify(added.errors));
    const index = added.data?.addRepairEntry.index as string;
    const entryOn = async (r: TestKintsugi) =>
      (await r.gql<{ repairEntry: Entry }>(`query($i: ID!) { repairEntry(index: $i) { index status stepStatus } }`, { i: index })).data?.repairEntry;
    await until(
      "the leader runs the held repair command, the step watching",
      async () => ({ entry: await entryOn(successor), running: machines.running(ADDRESS) }),
      (s) => s.entry?.stepStatus === "WATCHING" && s.running,
    );
    const historyBefore = await until(
      "the history before the deposition answers",
      () => successor.gql<{ repairHistory: Array<{ reason: string }> }>(`query($i: ID!) { repairHistory(index: $i) { reason } }`, { i: index }),
      (h) => h.errors === undefined,
    );
    const recordsBefore = historyBefore.data?.repairHistory.length ?? 0;
    // The command's completion would make the machine healthy; the health check is what finishes the entry.
    machines.setHealthy(ADDRESS);

    await revokeLeaseOf(client, deposedName);
    await until(
      "the deposed replica says it does not lead",
      () => replicaHealth(deposed.url),
      (h) => !h.leader,
    );
    await until("its repair command was aborted (the held-fix process is gone)", () => !machines.running(ADDRESS));
    // Were the command still alive, releasing it now would let it finish and its replica note "repair command succeeded".
    machines.release(ADDRESS);

    await until(
      "the other replica took over",
      () => replicaHealth(successor.url),
      (h) => h.leader,
    );
    const done = await untilTruthy(
      "the entry finished on the new leader",
      async () => {
        const e = await entryOn(successor);
        return e && e.status !== "QUEUED" && e.status !== "PROCESSING" ? e : null;
      },
      30_000,
    );
    assert.equal(done.status, "SUCCEEDED");
    assert.equal(machines.runs("held-fix", ADDRESS), 1, "the repair command ran once, on the deposed leader only");

    // The history is read from etcd itself (not the mirror): on a loaded machine a read can time out, so ask again
    // until it answers; an answer without the finishing record would still fail below.
    const history = await until(
      "the new leader answers the entry's history",
      () =>
        successor.gql<{ repairHistory: Array<{ reason: string; status: string }> }>(`query($i: ID!) { repairHistory(index: $i) { reason status } }`, {
          i: index,
        }),
      (h) => h.errors === undefined,
    );
    const after = history.data?.repairHistory.slice(recordsBefore) ?? [];
    assert.ok(after.length > 0, `the new leader recorded how the entry finished: ${JSON.stringify(history.data?.repairHistory)}`);
    // The successor says the command was interrupted (it waited it out); the deposed term recorded no outcome.
    assert.deepEqual(
      after.filter((r) => /repair command/.test(r.reason) && !/was interrupted/.test(r.reason)),
      [],
      `no record of the aborted command's outcome from the deposed term: ${JSON.stringify(after)}`,
    );
    assert.equal(after.filter((r) => /was interrupted/.test(r.reason)).length, 1, JSON.stringify(after));
    assert.deepEqual(await entryOn(deposed), done, "both replicas see the same entry");
  });
});
