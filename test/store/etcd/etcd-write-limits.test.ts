import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import { StoreLimitError, type KintsugiStore } from "../../../src/store/store-port.js";
import { beforeTransactionEtcdClient } from "../../support/etcd-clients.js";
import { NOW } from "../../support/fixtures.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { ACTOR, commitsOf, newEntry, outcome } from "../conformance/store-harness.js";

/**
 * etcd's refusal of a transaction over its limits is an answer, not an outage: the caller gets StoreLimitError
 * naming the limit, the store stays healthy, and nothing is written. The store refuses itself what it knows etcd would
 * refuse; told larger limits than etcd's, it meets etcd's own refusal.
 */
describe("etcd store at etcd's transaction limits", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("write-limits");
  let store: KintsugiStore | null = null;

  afterEach(async () => {
    await store?.close();
    store = null;
  });

  const cases: Array<{ name: string; writeLimits: { maxTxnOps?: number; maxRequestBytes?: number }; message: RegExp }> = [
    {
      name: "etcd refuses more operations than its --max-txn-ops",
      writeLimits: { maxTxnOps: 100_000 },
      message: /marking repair entries for deletion: etcd refused the transaction as too large \(.*too many operations in txn request\); nothing was written/,
    },
    {
      name: "the store refuses a request over the configured --max-request-bytes itself",
      writeLimits: { maxRequestBytes: 64 * 1024 },
      message:
        /marking repair entries for deletion: about \d+ bytes in one request, more than etcd's --max-request-bytes \(65536\) leaves room for; nothing was written/,
    },
  ];

  for (const { name, writeLimits, message } of cases) {
    it(`${name}: StoreLimitError, nothing written, the store healthy`, async () => {
      store = await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix: suite.freshPrefix(), writeLimits });
      const reason = "x".repeat(2_000);
      for (let i = 0; i < 100; i++) await store.entries.add(newEntry(`10.0.0.${i}`, { status: "failed" }), reason, NOW, ACTOR);
      const commits = commitsOf(store);
      // One entry of this size alone is over 64 KiB: no part can be made small enough.
      const oversized = writeLimits.maxRequestBytes === undefined ? reason : "y".repeat(70 * 1024);
      await assert.rejects(
        store.entries.requestDelete(() => true, oversized, NOW, ACTOR),
        (err: Error) => {
          assert.ok(err instanceof StoreLimitError, String(err));
          assert.match(err.message, message);
          return true;
        },
      );
      assert.deepEqual(store.health(), { backend: "etcd", healthy: true });
      assert.deepEqual(commits, []);
      assert.ok(store.entries.list().every((e) => !e.deleted));
    });
  }

  it("a queue write of another replica between a poll's parts ends the poll there: fewer entries than decided, the outcome lists those enqueued", async () => {
    const prefix = suite.freshPrefix();
    const other = await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix });
    try {
      // The poll's second transaction is its second part: another replica adds an entry just before it is sent.
      let sent = 0;
      let sentWhileOpening: number | null = null;
      const client = beforeTransactionEtcdClient(suite.client, async (n) => {
        sent = n;
        if (sentWhileOpening !== null && n === sentWhileOpening + 2) await other.entries.add(newEntry("10.9.9.9"), "another replica", NOW, "other");
      });
      store = await openEtcdStore({ client, endpoints: suite.etcd.endpoints, prefix });
      sentWhileOpening = sent;
      let decisions = 0;
      const result = await store.enqueue(
        () => {
          decisions++;
          const add = Array.from({ length: 300 }, (_, i) => ({ entry: newEntry(`10.1.${Math.floor(i / 256)}.${i % 256}`), reason: "poll" }));
          return { add, outcome: (enqueued) => ({ ...outcome(1), enqueued }) };
        },
        NOW,
        "sabakan",
      );
      assert.equal(decisions, 1, "decided once: the parts never decide again");
      assert.ok(result.changes.length > 0 && result.changes.length < 300, `fewer than decided: ${result.changes.length}`);
      assert.deepEqual(
        result.outcome?.enqueued,
        result.changes.map((c) => c.entry),
        "the outcome lists what was enqueued",
      );
      assert.equal(store.entries.list().length, result.changes.length + 1);
      assert.deepEqual(await store.outcomes.last(null), [result.outcome]);
    } finally {
      await other.close();
    }
  });

  it("rejects limits etcd cannot have", async () => {
    await assert.rejects(
      openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix: suite.freshPrefix(), writeLimits: { maxTxnOps: 0 } }),
      /max-txn-ops must be a whole number of at least 8, got 0/,
    );
    await assert.rejects(
      openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix: suite.freshPrefix(), writeLimits: { maxRequestBytes: 1.5 } }),
      /max-request-bytes must be a whole number of at least 65536, got 1.5/,
    );
  });
});
