import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { summarizeSnapshot } from "../../../src/store/copy/snapshot-digest.js";
import { SnapshotSourceError } from "../../../src/store/copy/store-snapshot.js";
import { decodeRecord, MAX_ETCD_RECORD_BYTES } from "../../../src/store/core/poll-record-port.js";
import { StoreKeys } from "../../../src/store/core/store-keys.js";
import { openEtcdSnapshotSource } from "../../../src/store/copy/snapshot-access.js";
import { NOW } from "../../support/fixtures.js";
import { loggingEtcdStores } from "../../support/logging-etcd-stores.js";
import { randomPollRecord, readPollRecords } from "../../support/replay-records.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { until } from "../../support/until.js";
import { ACTOR, newEntry, outcome } from "../conformance/store-harness.js";

const recordOf = (n: number, serialBytes: number, time = NOW) => randomPollRecord(time, n, serialBytes);
const key = (prefix: string, sequence: number, time: number, bytes: number) =>
  `${prefix}records/intake/${[sequence, time, bytes].map((n) => String(n).padStart(16, "0")).join("/")}`;
const valueOf = (body: unknown) => JSON.stringify({ v: 1, body: deflateRawSync(Buffer.from(JSON.stringify(body))).toString("base64") });

/** The replay records on etcd: bounded by etcd's request size, and never trusted when another process wrote them. */
describe("etcd replay records", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("replay-records");
  const { logged, open } = loggingEtcdStores(suite);

  it("leaves out a record too large for an etcd request, says so, and still commits the poll's entries and outcome", async () => {
    const store = await open(suite.freshPrefix());
    const huge = recordOf(1_500, 400);
    const result = await store.enqueue(
      () => ({ add: [{ entry: newEntry("10.0.0.1"), reason: "r" }], outcome: () => outcome(1), pollRecord: huge }),
      NOW,
      ACTOR,
    );
    assert.equal(result.changes.length, 1);
    assert.equal(store.entries.list().length, 1);
    assert.equal((await store.outcomes.last(null)).length, 1);
    assert.deepEqual(await readPollRecords(store.pollRecords, 0, 10), { records: [], unreadable: 0 });
    const said = logged.find((l) => l.level === "error" && /too large to keep/.test(l.message));
    assert.ok(said, "logged");
    assert.equal(said.fields["limit"], MAX_ETCD_RECORD_BYTES);
    assert.ok(Number(said.fields["bytes"]) > MAX_ETCD_RECORD_BYTES);
  });

  // The store takes a value apart and logs what it cannot (the key named); the replay's worker decodes the record and
  // counts what it cannot read; a check or copy names either, as decodeRecord says it.
  const hostile: Array<[string, (prefix: string) => [string, string], RegExp, "logged by the store" | "counted by the replay"]> = [
    ["a value that is not JSON", (p) => [key(p, 5, NOW, 9), "{ not json"], /does not hold JSON/, "logged by the store"],
    ["a body that is not base64", (p) => [key(p, 5, NOW, 22), JSON.stringify({ v: 1, body: "$$$$" })], /must be base64/, "logged by the store"],
    [
      "a record whose key lies about its size",
      (p) => {
        const v = valueOf(recordOf(2, 4));
        return [key(p, 5, NOW, 1), v];
      },
      /its key says 1 bytes/,
      "logged by the store",
    ],
    [
      "a body that does not inflate",
      (p) => {
        const v = JSON.stringify({ v: 1, body: "AAAA" });
        return [key(p, 5, NOW, Buffer.byteLength(v)), v];
      },
      /not a deflated JSON poll record/,
      "counted by the replay",
    ],
    [
      "a record whose columns differ in length",
      (p) => {
        const r = recordOf(2, 4);
        const v = valueOf({ ...r, machines: { ...r.machines, rack: [0] } });
        return [key(p, 5, NOW, Buffer.byteLength(v)), v];
      },
      /columns of different lengths/,
      "counted by the replay",
    ],
    [
      "a record of another time than its key's",
      (p) => {
        const v = valueOf(recordOf(2, 4, NOW + 5));
        return [key(p, 5, NOW, Buffer.byteLength(v)), v];
      },
      /at 1\d+, its value is \d+ bytes at/,
      "counted by the replay",
    ],
  ];
  for (const [name, put, why, where] of hostile) {
    it(`counts as unreadable ${name}, ${where}, and reads the other records`, async () => {
      const prefix = suite.freshPrefix();
      const store = await open(prefix);
      const good = recordOf(3, 4, NOW - 1);
      await store.enqueue(() => ({ add: [], outcome: () => outcome(1), pollRecord: good }), NOW, ACTOR);
      const [k, v] = put(prefix);
      await suite.client.put(k).value(v);
      await until(
        "the mirror has the hostile key",
        () => store.pollRecords.size().records,
        (n) => n === 2,
      );
      assert.deepEqual(await readPollRecords(store.pollRecords, 0, 10), { records: [good], unreadable: 1 });
      const said = logged.find((l) => l.level === "error" && l.fields["key"] === k);
      if (where === "logged by the store") assert.match(String(said?.fields["error"]), why);
      else assert.equal(said, undefined, "the store hands the value on undecoded");
      const parsed = new StoreKeys(prefix).parse(k);
      assert.ok(parsed.kind === "record");
      const read = decodeRecord(k, parsed.record, Buffer.from(v));
      assert.match(read.ok ? "" : read.message, why, "as a check or copy names it");
    });
  }

  it("fails a check or copy of a prefix holding a replay record that cannot be read, naming it, rather than drop it", async () => {
    const prefix = suite.freshPrefix();
    const store = await open(prefix);
    await store.enqueue(() => ({ add: [], outcome: () => outcome(1), pollRecord: recordOf(3, 4, NOW - 1) }), NOW, ACTOR);
    const [k] = await suite.client.getAll().prefix(`${prefix}records/`).keys();
    await suite.client.put(k as string).value(JSON.stringify({ v: 1, body: "AAAA" }));
    await store.close();
    const source = await openEtcdSnapshotSource({ client: suite.client, prefix, endpoints: suite.etcd.endpoints, timeoutMs: 5000 });
    try {
      await assert.rejects(
        summarizeSnapshot(source.description, source.items()),
        (err: Error) =>
          err instanceof SnapshotSourceError &&
          err.message.includes(`store key ${k} holds a replay record that cannot be read (not a deflated JSON poll record`),
      );
    } finally {
      await source.close();
    }
  });

  it("keeps a record under records/<kind>/<sequence>/<time>/<bytes>, its value versioned deflated JSON, beside its sequence head", async () => {
    const prefix = suite.freshPrefix();
    const store = await open(prefix);
    const r = recordOf(2, 4);
    await store.enqueue(() => ({ add: [], outcome: () => outcome(1), pollRecord: r }), NOW, ACTOR);
    const values = await suite.client.getAll().prefix(`${prefix}records`).strings();
    const [head, recordKey] = Object.keys(values).sort();
    const value = values[recordKey as string] as string;
    assert.equal(recordKey, key(prefix, 1, NOW, Buffer.byteLength(value)));
    assert.equal(head, `${prefix}records-head`);
    assert.deepEqual(JSON.parse(inflateRawSync(Buffer.from((JSON.parse(value) as { body: string }).body, "base64")).toString("utf8")), r);
    assert.equal((JSON.parse(values[head] as string) as { next: number }).next, 2);
  });

  it("ignores a record key whose sequence is past the safe integers, and goes on writing records", async () => {
    const prefix = suite.freshPrefix();
    const store = await open(prefix);
    const v = valueOf(recordOf(1, 4));
    await suite.client.put(key(prefix, 1, NOW, Buffer.byteLength(v)).replace("/0000000000000001/", "/9999999999999999/")).value(v);
    // The store's own write resolves once its mirror has applied it, so the mirror has met the key before.
    await store.settings.setHealthCheckPaused("marker", true);
    const r = recordOf(1, 4, NOW + 1);
    await store.enqueue(() => ({ add: [], outcome: () => outcome(1), pollRecord: r }), NOW + 1, ACTOR);
    assert.deepEqual(await readPollRecords(store.pollRecords, 0, 10), { records: [r], unreadable: 0 });
  });

  it("commits a poll's entries and outcome without its record while the records head cannot be read, and says so", async () => {
    const prefix = suite.freshPrefix();
    const store = await open(prefix);
    await suite.client.put(`${prefix}records-head`).value("{ broken");
    await store.settings.setHealthCheckPaused("marker", true);
    await store.enqueue(() => ({ add: [{ entry: newEntry("10.0.0.1"), reason: "r" }], outcome: () => outcome(1), pollRecord: recordOf(1, 4) }), NOW, ACTOR);
    assert.equal(store.entries.list().length, 1);
    assert.equal((await store.outcomes.last(null)).length, 1);
    assert.deepEqual(store.pollRecords.size(), { records: 0, bytes: 0 });
    assert.ok(
      logged.some(
        (l) => l.level === "error" && /head cannot be read; this write keeps no replay record/.test(l.message) && l.fields["key"] === `${prefix}records-head`,
      ),
    );
  });
});
