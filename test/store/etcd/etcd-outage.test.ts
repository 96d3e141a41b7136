import assert from "node:assert/strict";
import { after, afterEach, before, describe, it } from "node:test";
import type { Etcd3 } from "etcd3";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import { StoreUnavailableError, type KintsugiStore } from "../../../src/store/store-port.js";
import { logTo } from "../../../src/support/log.js";
import { testEtcdClient } from "../../support/etcd-clients.js";
import { NOW } from "../../support/fixtures.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd, type TestEtcdMember } from "../../support/test-etcd.js";
import { until } from "../../support/until.js";
import { ACTOR, commitsOf, newEntry } from "../conformance/store-harness.js";

type Logged = { level: string; message: string; fields: Readonly<Record<string, unknown>> };

/**
 * A replica whose only etcd member dies and comes back, while another replica (on the other members of a
 * three-member cluster) keeps writing: the lone replica keeps serving reads, refuses writes with
 * StoreUnavailableError, reports itself unhealthy, and afterwards catches up on every commit it missed, once each.
 */
describe("etcd store when its etcd member is down", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let m0: TestEtcdMember;
  let lone: Etcd3;
  let others: Etcd3;
  let tests = 0;
  let stores: KintsugiStore[] = [];
  const logged: Logged[] = [];

  before(async () => {
    etcd = await startTestEtcd({ members: 3 });
    m0 = etcd.members[0]!;
    lone = testEtcdClient([m0.clientUrl]);
    others = testEtcdClient(etcd.members.slice(1).map((m) => m.clientUrl));
  });
  after(async () => {
    lone?.close();
    others?.close();
    await etcd?.stop();
  });
  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
    if (!m0.running()) await m0.restart();
  });

  /** The replica on m0 alone and one on the other members, on a fresh prefix. */
  const replicas = async (): Promise<[KintsugiStore, KintsugiStore]> => {
    const prefix = `/outage-${++tests}/`;
    const log = logTo((level, message, fields) => logged.push({ level, message, fields }));
    const a = await openEtcdStore({ client: lone, prefix, endpoints: [m0.clientUrl], log, timeoutMs: 1000 });
    const b = await openEtcdStore({ client: others, prefix, endpoints: etcd.members.slice(1).map((m) => m.clientUrl) });
    stores.push(a, b);
    return [a, b];
  };

  it("serves reads, refuses writes naming the endpoint, is unhealthy while down, then resumes with no missed or doubled commits", async () => {
    const [a, b] = await replicas();
    const seenByA = commitsOf(a);
    const seenByB = commitsOf(b);
    const { entry } = await a.entries.add(newEntry("10.0.0.1"), "before", NOW, ACTOR);
    await until("b has the entry", () => b.entries.get(entry.index));
    assert.deepEqual(a.health(), { backend: "etcd", healthy: true });

    await m0.kill();
    await until(
      "a reports the lost watch",
      () => a.health(),
      (h) => !h.healthy,
    );
    await assert.rejects(a.entries.add(newEntry("10.0.0.2"), "while down", NOW, ACTOR), (err: Error) => {
      assert.ok(err instanceof StoreUnavailableError, `${err.name}: ${err.message}`);
      assert.equal(err.code, "STORE_UNAVAILABLE");
      assert.match(err.message, new RegExp(m0.clientUrl.replace(/[.:/]/g, "\\$&")));
      return true;
    });
    await assert.rejects(a.entries.history(entry.index), StoreUnavailableError);
    assert.deepEqual(a.entries.list(), [entry], "reads are served from the mirror");
    const down = a.health();
    assert.ok(!down.healthy && down.reason.includes(m0.clientUrl), JSON.stringify(down));

    // The other replica goes on writing: the lone one must catch up on exactly these. (If m0 led the cluster, the
    // others elect a new leader first: wait until they answer a linearizable read.)
    await until("the other members have a leader", () =>
      others.get("/").then(
        () => true,
        () => false,
      ),
    );
    await b.entries.change(entry.index, (e) => e && [{ entry: { ...e, status: "processing" }, kind: "transition", reason: "meanwhile 1" }], NOW, ACTOR);
    await b.entries.add(newEntry("10.0.0.3"), "meanwhile 2", NOW, ACTOR);
    await b.settings.setAutoRepairEnabled(false);

    await m0.restart();
    await until("a is healthy again", () => a.health().healthy);
    await until(
      "a saw every commit b saw",
      () => seenByA.length,
      (n) => n >= seenByB.length,
    );
    assert.deepEqual(seenByA, seenByB, "the same commits, in the same order, once each");
    assert.deepEqual(a.entries.list(), b.entries.list());
    assert.equal(a.settings.autoRepairEnabled(), false);
    // The client's circuit breaker may hold writes back for a few seconds after the member returns.
    await until("a writes again", () =>
      a.settings.setRepairQueueEnabled(false).then(
        () => true,
        () => false,
      ),
    );
    await until("b sees a's write", () => b.settings.repairQueueEnabled() === false);
    assert.deepEqual(a.health(), { backend: "etcd", healthy: true });
  });

  it("reads the whole store again when etcd compacted past its mirror, and says so loudly", async () => {
    const [a, b] = await replicas();
    await a.entries.add(newEntry("10.0.0.1"), "before", NOW, ACTOR);
    await m0.kill();
    await until("the other members have a leader", () =>
      others.get("/").then(
        () => true,
        () => false,
      ),
    );
    await b.entries.add(newEntry("10.0.0.2"), "meanwhile", NOW, ACTOR);
    await b.settings.setClusterGenerationEnabled(false);
    const revision = (await others.get("/").exec()).header.revision;
    await others.kv.compact({ revision, physical: true });
    await m0.restart();
    await until("a read the store again", () => a.entries.list().length === 2 && !a.settings.clusterGenerationEnabled());
    assert.deepEqual(a.entries.list(), b.entries.list());
    assert.ok(
      logged.some((l) => l.level === "error" && /reading the whole store again/.test(l.message)),
      JSON.stringify(logged),
    );
    await until("a is healthy again", () => a.health().healthy);
  });
});
