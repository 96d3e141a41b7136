import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import { StoreUnavailableError, type KintsugiStore } from "../../../src/store/store-port.js";
import { answerLosingEtcdClient, failingEtcdClient } from "../../support/etcd-clients.js";
import { NOW } from "../../support/fixtures.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { until } from "../../support/until.js";
import { ACTOR, cluster, commitsOf, newEntry, outcome } from "../conformance/store-harness.js";

/**
 * Transactions that fail or whose answers are lost. A transaction can commit and its answer be lost; the client then
 * sends it again, and the second try fails its compare (the first one moved the head). The store must see that the
 * first try was its own (the write id it stamped on the head) and resolve, not decide again and write a second time.
 */
describe("etcd store when transactions fail", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("txn-faults");
  let store: KintsugiStore | null = null;

  afterEach(async () => {
    await store?.close();
    store = null;
  });

  const writes: Array<[string, (s: KintsugiStore) => Promise<unknown>, (s: KintsugiStore) => unknown]> = [
    ["add", (s) => s.entries.add(newEntry("10.0.0.9"), "add", NOW, ACTOR), (s) => s.entries.list().length],
    [
      "change",
      (s) => s.entries.change(1, (e) => e && [{ entry: { ...e, drainBackoffCount: e.drainBackoffCount + 1 }, kind: "note", reason: "bump" }], NOW, ACTOR),
      (s) => s.entries.get(1)?.drainBackoffCount,
    ],
    [
      "enqueue",
      (s) => s.enqueue(() => ({ add: [{ entry: newEntry("10.0.0.8"), reason: "poll" }], outcome: () => outcome(1) }), NOW, "sabakan"),
      async (s) => [s.entries.list().length, (await s.outcomes.last(null)).length],
    ],
    ["outcome", (s) => s.outcomes.record(outcome(2)), async (s) => (await s.outcomes.last(null)).length],
    ["generation", (s) => s.generations.recordGenerated(NOW, "operator", cluster(1), []), (s) => s.generations.last(null).length],
    ["setting", (s) => s.settings.setConstraints({ maximumWorkers: 3 }), (s) => s.settings.constraints().maximumWorkers],
  ];
  const once: Record<string, unknown> = { add: 2, change: 1, enqueue: [2, 1], outcome: 1, generation: 1, setting: 3 };

  for (const [name, write, observe] of writes) {
    it(`${name} whose answer was lost and that was sent again commits once, announces once, and resolves`, async () => {
      const prefix = suite.freshPrefix();
      const setup = await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix });
      await setup.entries.add(newEntry("10.0.0.1"), "setup", NOW, ACTOR);
      await setup.close();
      store = await openEtcdStore({ client: answerLosingEtcdClient(suite.client), endpoints: suite.etcd.endpoints, prefix });
      const commits = commitsOf(store);
      await write(store);
      assert.deepEqual(await observe(store), once[name]);
      assert.equal(commits.length, 1, JSON.stringify(commits));
    });
  }

  it("a transaction etcd does not answer fails with StoreUnavailableError and marks the store unhealthy until etcd answers again", async () => {
    const prefix = suite.freshPrefix();
    const failing = failingEtcdClient(suite.client);
    store = await openEtcdStore({ client: failing.client, prefix, endpoints: ["http://etcd.invalid:2379"], timeoutMs: 200 });
    const commits = commitsOf(store);
    failing.fail();
    await assert.rejects(store.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR), (err: Error) => {
      assert.ok(err instanceof StoreUnavailableError);
      assert.match(
        err.message,
        /^etcd at http:\/\/etcd\.invalid:2379 did not answer \(adding a repair entry; it may or may not have been committed\): GRPCUnavailableError: 14 UNAVAILABLE/,
      );
      return true;
    });
    const health = store.health();
    assert.ok(!health.healthy && health.reason.includes("http://etcd.invalid:2379"), JSON.stringify(health));
    // No write follows: a probe finds that etcd answers reads again.
    await until("the store is healthy again", () => store!.health().healthy);
    failing.heal();
    await store.settings.setAutoRepairEnabled(false);
    assert.deepEqual(
      commits.map((c) => c.settings),
      [["auto-repair-enabled"]],
      "the failed write announced nothing",
    );
    assert.deepEqual(store.entries.list(), []);
  });
});
