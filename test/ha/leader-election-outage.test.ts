import { afterEach, describe, it } from "node:test";
import assert from "node:assert/strict";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { soleLeader, startReplica, testPrefix, type ElectionReplica } from "../support/election-replica.js";
import { until } from "../support/until.js";

describe("LeaderElection while etcd members fail", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd | null = null;
  let replicas: ElectionReplica[] = [];
  afterEach(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    replicas = [];
    await etcd?.stop();
    etcd = null;
  });

  it("keeps its leader through the restart of each member of a 3-member etcd, each outage shorter than the TTL", async () => {
    const cluster = await startTestEtcd({ members: 3 });
    etcd = cluster;
    const prefix = testPrefix();
    replicas = ["boot-1", "boot-2"].map((name) => startReplica(cluster.endpoints, prefix, name, 10));
    const leader = await soleLeader(replicas);
    const held = leader.election.guard.current();
    let lapses = 0;
    const watchdog = setInterval(() => {
      if (!leader.election.isLeader()) lapses += 1;
    }, 20);
    try {
      for (const member of cluster.members) {
        await member.kill();
        await member.restart();
        await soleLeader(replicas, `one leader after ${member.name} restarted`);
      }
    } finally {
      clearInterval(watchdog);
    }
    assert.equal(lapses, 0, "the leader stopped leading during a member restart");
    assert.deepEqual(leader.election.guard.current(), held, "the same key still guards the leader's writes");
    for (const r of replicas) assert.deepEqual(r.events, r === leader ? ["elected"] : [], `${r.name}'s events`);
    // The follower's view of the election survived the restarts: it sees the resignation and takes over.
    await leader.stop();
    const next = await soleLeader(
      replicas.filter((r) => r !== leader),
      "the follower takes over after the restarts",
      8000,
    );
    assert.deepEqual(next.events, ["elected"]);
  });

  it("a leader cut off from etcd for longer than the TTL stops leading, and leads again once etcd is back", async () => {
    const single = await startTestEtcd();
    etcd = single;
    const a = startReplica(single.endpoints, testPrefix(), "boot-1", 2);
    replicas = [a];
    await soleLeader([a]);
    const [member] = single.members;
    assert.ok(member);
    await member.kill();
    await until(
      "the leader is deposed while etcd is down",
      () => a.events.slice(),
      (events) => events.length === 2,
    );
    assert.match(a.events[1] ?? "", /^deposed: no keep-alive of lease \d+ was answered within its TTL of 2 s$/);
    assert.equal(a.election.guard.current(), null);
    await member.restart();
    await until("it leads again", () => a.election.isLeader());
    assert.deepEqual(a.events, ["elected", `${a.events[1]}`, "elected"]);
  });
});
