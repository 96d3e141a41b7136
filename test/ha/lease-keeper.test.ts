import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import { performance } from "node:perf_hooks";
import type { Etcd3 } from "etcd3";
import { DEFAULT_ETCD_CONFIG } from "../../src/config/etcd-config.js";
import { LeaseKeeper } from "../../src/ha/lease-keeper.js";
import { etcdClientFor } from "../../src/adapters/etcd-client.js";
import { ETCD_SKIP, startTestEtcd, type TestEtcd } from "../support/test-etcd.js";
import { until } from "../support/until.js";

describe("LeaseKeeper on a real etcd", { skip: ETCD_SKIP }, () => {
  let etcd: TestEtcd;
  let admin: Etcd3;
  const clients: Etcd3[] = [];
  const keepers: LeaseKeeper[] = [];
  before(async () => {
    etcd = await startTestEtcd();
    admin = etcdClientFor({ ...DEFAULT_ETCD_CONFIG, endpoints: etcd.endpoints });
  });
  after(async () => {
    for (const keeper of keepers) keeper.stop();
    for (const client of clients) client.close();
    admin?.close();
    await etcd?.stop();
  });

  /** Grants a 2 s lease on a client of its own; `lost` collects the reasons it reports. */
  async function grant(): Promise<{ keeper: LeaseKeeper; client: Etcd3; lost: string[] }> {
    const client = etcdClientFor({ ...DEFAULT_ETCD_CONFIG, endpoints: etcd.endpoints, timeoutMs: 1000 });
    clients.push(client);
    const lost: string[] = [];
    const keeper = await LeaseKeeper.grant({ client, ttlSeconds: 2, clock: () => performance.now(), onLost: (reason) => lost.push(reason) });
    keepers.push(keeper);
    return { keeper, client, lost };
  }

  const remainingTtl = async (id: string) => Number((await admin.leaseClient.leaseTimeToLive({ ID: id })).TTL);

  it("keeps the lease alive well past its TTL, moving its deadline forward", async () => {
    const { keeper, lost } = await grant();
    const firstDeadline = keeper.validUntil();
    await until(
      "the deadline moved three TTLs on",
      () => keeper.validUntil(),
      (at) => at > firstDeadline + 6000,
    );
    assert.ok((await remainingTtl(keeper.id)) > 0, "etcd still has the lease");
    assert.deepEqual(lost, []);
  });

  it("reports the lease lost when etcd says it was revoked", async () => {
    const { keeper, lost } = await grant();
    await admin.leaseClient.leaseRevoke({ ID: keeper.id });
    await until(
      "the loss is reported",
      () => lost.slice(),
      (reasons) => reasons.length > 0,
    );
    assert.deepEqual(lost, [`etcd says lease ${keeper.id} has expired or was revoked`]);
  });

  it("reports the lease lost when no keep-alive is answered for a whole TTL", async () => {
    const { keeper, client, lost } = await grant();
    client.close();
    await until(
      "the loss is reported",
      () => lost.slice(),
      (reasons) => reasons.length > 0,
    );
    assert.deepEqual(lost, [`no keep-alive of lease ${keeper.id} was answered within its TTL of 2 s`]);
    assert.ok(performance.now() >= keeper.validUntil(), "not reported before the deadline");
  });

  it("revoke() removes the lease from etcd and reports nothing", async () => {
    const { keeper, lost } = await grant();
    await keeper.revoke();
    assert.equal(await remainingTtl(keeper.id), -1);
    assert.deepEqual(lost, []);
  });
});

describe("LeaseKeeper when a keep-alive goes to an etcd member that does not answer", () => {
  /**
   * A client whose keep-alives are answered (TTL 1.5 s), but for the `unanswered`-th: that one waits out its deadline,
   * as one sent to a member cut off does (its packets dropped); the next goes to a member that answers.
   */
  function fakeClient(unanswered: number): { client: Etcd3; sent: () => number } {
    let sent = 0;
    const leaseClient = {
      leaseGrant: async () => ({ ID: "7", TTL: "1.5" }),
      leaseKeepAlive: async (options: { deadline: number }) => {
        const stream = new EventEmitter() as EventEmitter & { write: () => void; end: () => void };
        const n = ++sent;
        stream.end = () => undefined;
        stream.write = () => {
          if (n !== unanswered) setImmediate(() => stream.emit("data", { ID: "7", TTL: "1.5" }));
          else setTimeout(() => stream.emit("error", new Error("4 DEADLINE_EXCEEDED")), options.deadline - Date.now());
        };
        return stream;
      },
    };
    return { client: { leaseClient } as unknown as Etcd3, sent: () => sent };
  }

  it("sends the next one at once, to keep the lease alive within its TTL", async () => {
    const { client, sent } = fakeClient(2);
    const lost: string[] = [];
    const keeper = await LeaseKeeper.grant({ client, ttlSeconds: 1.5, clock: () => performance.now(), onLost: (reason) => lost.push(reason) });
    try {
      await until(
        "a keep-alive after the unanswered one is answered, or the lease is lost",
        () => ({ sent: sent(), lost: lost.length }),
        (s) => s.sent >= 4 || s.lost > 0,
      );
      assert.deepEqual(lost, []);
    } finally {
      keeper.stop();
    }
  });
});
