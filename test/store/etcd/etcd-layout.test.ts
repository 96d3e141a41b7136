import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import { StoreSchemaError } from "../../../src/store/core/schema-version.js";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { logTo } from "../../../src/support/log.js";
import { NOW } from "../../support/fixtures.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { ACTOR, cluster, newEntry, outcome } from "../conformance/store-harness.js";

/** What kintsugi leaves in etcd, and how it meets a prefix it did not (or could not) write. */
describe("etcd store layout", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("layout");
  let stores: KintsugiStore[] = [];
  const logged: Array<{ level: string; message: string; fields: Readonly<Record<string, unknown>> }> = [];

  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    stores = [];
  });

  const fresh = () => suite.freshPrefix();
  const open = async (prefix: string) => {
    const store = await openEtcdStore({
      client: suite.client,
      endpoints: suite.etcd.endpoints,
      prefix,
      log: logTo((level, message, fields) => logged.push({ level, message, fields })),
    });
    stores.push(store);
    return store;
  };
  const raw = async (prefix: string) =>
    Object.fromEntries(Object.entries(await suite.client.getAll().prefix(prefix).strings()).map(([k, v]) => [k.slice(prefix.length), v]));

  it("keeps every value as JSON stamped with the schema version, under numbered keys, the configuration gzip'd", async () => {
    const prefix = fresh();
    const store = await open(prefix);
    await store.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
    await store.settings.setAutoRepairEnabled(false);
    await store.outcomes.record({ time: NOW, trigger: "schedule", machinesSeen: 0, enqueued: [], skipped: [], shortCircuit: null, error: null });
    await store.generations.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
    const values = await raw(prefix);
    assert.deepEqual(Object.keys(values).sort(), [
      "entries/0000000000000001",
      "generations-head",
      "generations/0000000000000001",
      "history/0000000000000001/0000000000000001",
      "outcomes-head",
      "outcomes/0000000000000001",
      "queue",
      "schema",
      "settings/auto-repair-enabled",
    ]);
    // Each value stamped with its format's version: the schema key and the history records 2 (what changed), the rest 1.
    const formats = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, (JSON.parse(value) as { v: unknown }).v]));
    assert.deepEqual(formats, {
      "entries/0000000000000001": 1,
      "generations-head": 1,
      "generations/0000000000000001": 1,
      "history/0000000000000001/0000000000000001": 2,
      "outcomes-head": 1,
      "outcomes/0000000000000001": 1,
      queue: 1,
      schema: 2,
      "settings/auto-repair-enabled": 1,
    });
    const generation = JSON.parse(values["generations/0000000000000001"]!) as { record: { cluster: string } };
    assert.deepEqual([...Buffer.from(generation.record.cluster, "base64").subarray(0, 2)], [0x1f, 0x8b], "gzip magic");
  });

  const refusals: Array<[string, string, RegExp]> = [
    [
      "a schema version newer than this kintsugi knows",
      JSON.stringify({ v: 3 }),
      /etcd prefix \/layout-\d+\/ has schema version 3, newer than this kintsugi knows \(2\); upgrade kintsugi/,
    ],
    ["a schema key that is not JSON", "sabakan", /has a schema key .* that is not kintsugi's/],
    ["a schema key without a version", JSON.stringify({ version: 1 }), /has a schema key .* that is not kintsugi's/],
  ];
  for (const [name, schema, message] of refusals) {
    it(`refuses to open a prefix with ${name}, changing nothing`, async () => {
      const prefix = fresh();
      await suite.client.put(`${prefix}schema`).value(schema);
      await assert.rejects(open(prefix), (err: Error) => err instanceof StoreSchemaError && message.test(err.message));
      assert.deepEqual(await raw(prefix), { schema });
    });
  }

  it("refuses a prefix that does not end with a slash", async () => {
    await assert.rejects(
      openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix: "/kintsugi" }),
      /etcd prefix must be non-empty and end with "\/", got "\/kintsugi"/,
    );
  });

  it("leaves a value it cannot read out of the mirror, says which, and keeps it stored", async () => {
    const prefix = fresh();
    await (await open(prefix)).entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
    await suite.client.put(`${prefix}entries/0000000000000002`).value("{not json");
    await suite.client.put(`${prefix}entries/0000000000000003`).value(JSON.stringify({ v: 1, entry: { index: 3, status: "exploded" } }));
    const store = await open(prefix);
    assert.deepEqual(
      store.entries.list().map((e) => e.index),
      [1],
    );
    for (const key of ["entries/0000000000000002", "entries/0000000000000003"]) {
      assert.ok(
        logged.some((l) => l.level === "error" && l.fields["key"] === `${prefix}${key}`),
        key,
      );
    }
    assert.equal((await raw(prefix))["entries/0000000000000002"], "{not json");
  });

  const laggingHeads: Array<[string, string, (s: KintsugiStore) => Promise<number>, (head: Record<string, unknown>) => Record<string, unknown> | null]> = [
    [
      "a queue head rewound below a queued entry",
      "queue",
      async (s) => (await s.entries.add(newEntry("10.0.0.9"), "add", NOW, ACTOR)).entry.index,
      (head) => ({ ...head, nextIndex: 1 }),
    ],
    ["a lost outcomes head", "outcomes-head", async (s) => (await s.outcomes.record(outcome(9))).sequence, () => null],
    ["a lost generations head", "generations-head", async (s) => (await s.generations.recordFailed(NOW, "schedule", "error 9")).record.sequence, () => null],
  ];
  for (const [name, head, write, tamper] of laggingHeads) {
    it(`numbers past the newest record despite ${name}`, async () => {
      const prefix = fresh();
      const store = await open(prefix);
      for (let i = 1; i <= 2; i++) {
        await store.entries.add(newEntry(`10.0.0.${i}`), "add", NOW, ACTOR);
        await store.outcomes.record(outcome(i));
        await store.generations.recordFailed(NOW, "schedule", `error ${i}`);
      }
      const replaced = tamper(JSON.parse((await raw(prefix))[head]!) as Record<string, unknown>);
      if (replaced === null) await suite.client.delete().key(`${prefix}${head}`);
      else await suite.client.put(`${prefix}${head}`).value(JSON.stringify(replaced));
      assert.equal(await write(store), 3);
    });
  }

  it("hands out no index while the queue head is gone but entries remain, so none is used twice", async () => {
    const prefix = fresh();
    const store = await open(prefix);
    await store.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
    await store.entries.add(newEntry("10.0.0.2"), "add", NOW, ACTOR);
    await store.entries.dequeue(2, () => "done", NOW, ACTOR);
    await suite.client.delete().key(`${prefix}queue`);
    for (const s of [store, await open(prefix)]) {
      await assert.rejects(
        s.entries.add(newEntry("10.0.0.3"), "add", NOW, ACTOR),
        /the queue head \/layout-\d+\/queue is missing while repair entries or their history exist/,
      );
    }
    assert.deepEqual(
      Object.keys(await raw(prefix)).filter((k) => k.startsWith("entries/")),
      ["entries/0000000000000001"],
    );
  });
});
