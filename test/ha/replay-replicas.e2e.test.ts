import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { EMPTY_REPAIR_CONFIG } from "../../src/domain/queue/repair-config.js";
import { startEtcdReplicas, untilOneLeads } from "../support/etcd-replicas.js";
import { startFakeSabakan, type FakeSabakan } from "../support/fake-sabakan.js";
import type { TestKintsugi } from "../support/kintsugi-server.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until } from "../support/until.js";

const MINUTE = 60_000;
const REPLAY = `query($since: DateTime!) {
  simulateAutoRepair(since: $since, constraints: { maximumRepairQueueEntries: 2 }) {
    pollsReplayed unreadableRecords truncated
    polls { time differences { serial address live simulated } }
  }
}`;

/** The what-if replay on etcd: the leader records the polls, and every replica replays the same records. */
describe("the what-if replay on replicas sharing one etcd", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let sabakan: FakeSabakan;
  let replicas: TestKintsugi[] = [];

  before(async () => {
    etcd = await startTestEtcd();
    sabakan = await startFakeSabakan();
    replicas = await startEtcdReplicas(etcd, ["replay-a", "replay-b"], {
      prefix: "/replay-replicas/",
      leaseTtlSeconds: 3,
      repair: () => EMPTY_REPAIR_CONFIG,
      config: {
        sabakan: { url: sabakan.url, schedule: "0 0 1 1 *", timeoutSeconds: 5, maxResponseBytes: 1024 * 1024 },
        constraints: { maximumRepairQueueEntries: 10 },
      },
    });
  });
  after(async () => {
    await Promise.all(replicas.map((r) => r.dispose()));
    await sabakan?.close();
    await etcd?.stop();
  });

  it("answers a follower's replay exactly as the leader's, from the records the leader's polls kept", async () => {
    const { leaderAt } = await untilOneLeads(replicas.map((r) => r.url));
    const leader = replicas[leaderAt] as TestKintsugi;
    const follower = replicas.find((_, i) => i !== leaderAt) as TestKintsugi;
    for (const serial of ["r1-1", "r1-2", "r1-3"]) sabakan.addMachine({ serial, rack: 1, state: "UNHEALTHY", stateSince: Date.now() - 10 * MINUTE });
    const polled = await leader.gql(`mutation { runAutoRepair { enqueued { address } } }`);
    assert.equal(polled.data?.["runAutoRepair"].enqueued.length, 3, JSON.stringify(polled));
    sabakan.addMachine({ serial: "r2-1", rack: 2, state: "UNREACHABLE", stateSince: Date.now() - 10 * MINUTE });
    assert.equal((await leader.gql(`mutation { runAutoRepair { enqueued { address } } }`)).data?.["runAutoRepair"].enqueued.length, 1);

    const since = new Date(Date.now() - 60 * MINUTE).toISOString();
    const onLeader = await leader.gql(REPLAY, { since });
    assert.equal(onLeader.errors, undefined, JSON.stringify(onLeader.errors));
    const answer = onLeader.data?.["simulateAutoRepair"] as { pollsReplayed: number; unreadableRecords: number; polls: unknown[] };
    assert.equal(answer.pollsReplayed, 2);
    assert.equal(answer.unreadableRecords, 0);
    assert.equal(answer.polls.length, 2, "a queue limit of 2 changes both polls");
    // The follower's watch may lag the leader's write: it answers the same once it has both records.
    const onFollower = await until(
      "the follower replays both polls",
      () => follower.gql(REPLAY, { since }),
      (r) => (r.data?.["simulateAutoRepair"] as { pollsReplayed?: number } | undefined)?.pollsReplayed === 2,
    );
    assert.deepEqual(onFollower, onLeader);
  });
});
