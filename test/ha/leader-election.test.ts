import { after, afterEach, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import type { Etcd3 } from "etcd3";
import { DEFAULT_ETCD_CONFIG } from "../../src/config/etcd-config.js";
import { etcdClientFor } from "../../src/adapters/etcd-client.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { soleLeader, startReplica, testPrefix, type ElectionReplica } from "../support/election-replica.js";
import { until } from "../support/until.js";

describe("LeaderElection on a real etcd", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let replicas: ElectionReplica[] = [];
  let clients: Etcd3[] = [];
  const replica = (prefix: string, name: string, ttl: number, options: { clock?: () => number } = {}) => {
    const started = startReplica(etcd.endpoints, prefix, name, ttl, options);
    replicas.push(started);
    return started;
  };
  before(async () => {
    etcd = await startTestEtcd();
  });
  afterEach(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    replicas = [];
    for (const client of clients) client.close();
    clients = [];
  });
  after(async () => {
    await etcd?.stop();
  });

  it("elects a lone candidate, whose guard is its key under <prefix>leader/", async () => {
    const prefix = testPrefix();
    const a = replica(prefix, "boot-1", 10);
    await soleLeader([a]);
    assert.equal(a.election.leader(), "boot-1");
    const held = a.election.guard.current();
    assert.ok(held !== null);
    assert.ok(held.key.startsWith(`${prefix}leader/`), held.key);
    assert.match(held.createRevision, /^[1-9]\d*$/);
    assert.deepEqual(a.events, ["elected"]);
  });

  it("of three candidates exactly one leads, every one names it, and only its guard holds", async () => {
    const prefix = testPrefix();
    const all = ["boot-1", "boot-2", "boot-3"].map((name) => replica(prefix, name, 10));
    const leader = await soleLeader(all);
    for (const r of all) {
      assert.equal(r.election.leader(), leader.name);
      assert.equal(r.election.guard.current() !== null, r === leader, `${r.name}'s guard`);
      assert.deepEqual(r.events, r === leader ? ["elected"] : []);
    }
  });

  it("a leader that stops resigns: another takes over long before the lease would expire", async () => {
    const prefix = testPrefix();
    // A lease of 60 s: only the resignation (key deleted, lease revoked) can hand over within the deadline below.
    const all = ["boot-1", "boot-2", "boot-3"].map((name) => replica(prefix, name, 60));
    const first = await soleLeader(all);
    await first.stop();
    assert.equal(first.election.isLeader(), false);
    assert.equal(first.election.guard.current(), null);
    assert.deepEqual(first.events, ["elected", "deposed: this replica resigned"]);
    const rest = all.filter((r) => r !== first);
    const second = await soleLeader(rest, "another replica leads after the resignation", 15_000);
    assert.notEqual(second.name, first.name);
  });

  it("a leader that dies without resigning is replaced once its lease expires, and stops leading itself", async () => {
    const prefix = testPrefix();
    const all = ["boot-1", "boot-2"].map((name) => replica(prefix, name, 2));
    const first = await soleLeader(all);
    // No keep-alive, no resignation: what a SIGKILLed or partitioned replica leaves behind.
    first.client.close();
    const second = await soleLeader(
      all.filter((r) => r !== first),
      "the other replica leads after the TTL",
    );
    assert.notEqual(second.name, first.name);
    await until(
      "the dead leader is deposed",
      () => first.events.slice(),
      (events) => events.length === 2,
    );
    assert.equal(first.election.isLeader(), false);
    assert.equal(first.election.guard.current(), null);
    assert.match(first.events[1] ?? "", /^deposed: no keep-alive of lease \d+ was answered within its TTL of 2 s$/);
  });

  it("a lease revoked from outside deposes the leader at once, and it campaigns again with a new key", async () => {
    const prefix = testPrefix();
    const a = replica(prefix, "boot-1", 30);
    await soleLeader([a]);
    const oldKey = a.election.guard.current()?.key as string;
    const admin = etcdClientFor({ ...DEFAULT_ETCD_CONFIG, endpoints: etcd.endpoints });
    clients.push(admin);
    const [kv] = (await admin.get(oldKey).exec()).kvs;
    assert.ok(kv, "the election key exists");
    let guardWhenDeposed: unknown = "not deposed";
    a.election.onDeposed(() => (guardWhenDeposed = a.election.guard.current()));
    await admin.leaseClient.leaseRevoke({ ID: kv.lease });
    await until(
      "the leader is deposed",
      () => a.events.slice(),
      (events) => events.length >= 2,
    );
    assert.equal(a.events[1], "deposed: this replica's election key was deleted");
    assert.equal(guardWhenDeposed, null, "the guard no longer holds when deposed is announced");
    await until(
      "it leads again with a new key",
      () => a.election.guard.current()?.key ?? null,
      (key) => key !== null && key !== oldKey,
    );
    assert.deepEqual(a.events, ["elected", "deposed: this replica's election key was deleted", "elected"]);
  });

  it("a leader whose process stood still past its lease stops leading the instant it runs again, before any timer", async () => {
    let stall = 0;
    const a = replica(testPrefix(), "boot-1", 10, { clock: () => performance.now() + stall });
    await soleLeader([a]);
    assert.ok(a.election.guard.current() !== null);
    // As if the event loop had stood still for the whole TTL: no timer has run, no watch event has arrived.
    stall = 10_000;
    assert.equal(a.election.isLeader(), false);
    assert.equal(a.election.guard.current(), null);
  });
});
