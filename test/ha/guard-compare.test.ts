import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import type { Etcd3, ICompare } from "etcd3";
import { DEFAULT_ETCD_CONFIG } from "../../src/config/etcd-config.js";
import { guardCompare } from "../../src/ha/guard-compare.js";
import { etcdClientFor } from "../../src/adapters/etcd-client.js";
import { NotLeaderError } from "../../src/store/store-port.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { soleLeader, startReplica, testPrefix, type ElectionReplica } from "../support/election-replica.js";
import { until } from "../support/until.js";

describe("guardCompare: the leader guard of a write, checked by etcd", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let admin: Etcd3;
  let leader: ElectionReplica;
  const prefix = testPrefix();
  const target = `${prefix}guarded`;
  before(async () => {
    etcd = await startTestEtcd();
    admin = etcdClientFor({ ...DEFAULT_ETCD_CONFIG, endpoints: etcd.endpoints });
    leader = startReplica(etcd.endpoints, prefix, "boot-1", 30);
    await soleLeader([leader]);
  });
  after(async () => {
    await leader?.stop();
    admin?.close();
    await etcd?.stop();
  });

  /** A write of `value` that commits only if every compare holds; whether it committed. */
  const write = async (compare: ICompare[], value: string) =>
    (await leader.client.kv.txn({ compare, success: [{ request_put: { key: Buffer.from(target), value: Buffer.from(value) } }] })).succeeded;

  const deposeFromOutside = async () => {
    const key = leader.election.guard.current()?.key as string;
    const [kv] = (await admin.get(key).exec()).kvs;
    assert.ok(kv, "the election key exists");
    const before = leader.events.length;
    await admin.leaseClient.leaseRevoke({ ID: kv.lease });
    await until(
      "the leader is deposed",
      () => leader.events.length,
      (n) => n > before,
    );
  };

  it("while the guard holds, a guarded write commits", async () => {
    assert.equal(await write([guardCompare(leader.election.guard)], "first"), true);
    assert.equal(await admin.get(target).string(), "first");
  });

  let stale: ICompare;

  it("after deposition the guard refuses before sending, and a write carrying the old guard fails in etcd", async () => {
    stale = guardCompare(leader.election.guard);
    await deposeFromOutside();
    assert.throws(() => guardCompare(leader.election.guard), NotLeaderError);
    // What a paused leader would send when it wakes up: its guard from before, which etcd refuses.
    assert.equal(await write([stale], "from a deposed leader"), false);
    assert.equal(await admin.get(target).string(), "first");
  });

  it("re-elected with a new key, the new guard commits and the old one still fails", async () => {
    await until("the replica leads again", () => leader.election.guard.current() !== null);
    assert.equal(await write([stale], "old guard"), false);
    assert.equal(await write([guardCompare(leader.election.guard)], "new guard"), true);
    assert.equal(await admin.get(target).string(), "new guard");
  });
});
