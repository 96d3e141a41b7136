import assert from "node:assert/strict";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { describe, it } from "node:test";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { encodePollRecord } from "../../../src/store/poll-record-schema.js";
import { SqlitePollRecordStore, STORED_BATCH } from "../../../src/store/sqlite/poll-record-store.js";
import { NOW } from "../../support/fixtures.js";
import { randomPollRecord, remediationRecordAt } from "../../support/replay-records.js";
import { tempDir } from "../../support/temp-dir.js";

const MINUTE = 60_000;
const DAY = 86_400_000;

const record = (time: number, n = 1) => randomPollRecord(time, n);
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

async function withStore(
  keep: { keepSeconds: number; maxBytes: number },
  scenario: (store: SqlitePollRecordStore, db: ReturnType<typeof openDatabase>) => Promise<void>,
): Promise<void> {
  const dir = tempDir();
  const db = openDatabase(join(dir.path, "k.db"));
  try {
    await scenario(new SqlitePollRecordStore(db, keep), db);
  } finally {
    db.close();
    dir.remove();
  }
}

describe("SqlitePollRecordStore", () => {
  it("reads back what it kept, from a time on, oldest first, at most the limit", async () =>
    withStore({ keepSeconds: 86_400, maxBytes: 1 << 30 }, async (store) => {
      const written = [0, 1, 2, 3].map((i) => record(NOW + i * MINUTE, 3));
      for (const r of written) store.append("intake", r);
      assert.deepEqual(await store.since(NOW + MINUTE, 2), { records: written.slice(1, 3), unreadable: 0 });
      assert.equal(store.size().records, 4);
    }));

  // A month of a busy data center's polls is tens of MB: read in one statement it held the event loop for seconds
  // (bench:abuse, issue 25). Every other record is a remediation, so each batch skips rows of the other kind.
  const STORED_CASES = [
    { name: "no record", polls: 0, since: 0, limit: 10, expected: [], yields: false },
    { name: "less than a batch", polls: STORED_BATCH - 1, since: 0, limit: 10_000, expected: range(0, STORED_BATCH - 1), yields: false },
    { name: "a batch and one more record", polls: STORED_BATCH + 1, since: 0, limit: 10_000, expected: range(0, STORED_BATCH + 1), yields: true },
    {
      name: "three batches from a time on",
      polls: 3 * STORED_BATCH,
      since: NOW + 7 * MINUTE,
      limit: 10_000,
      expected: range(7, 3 * STORED_BATCH),
      yields: true,
    },
    {
      name: "the limit ends the reading inside a batch",
      polls: 3 * STORED_BATCH,
      since: 0,
      limit: STORED_BATCH + 5,
      expected: range(0, STORED_BATCH + 5),
      yields: true,
    },
  ];
  for (const c of STORED_CASES) {
    it(`stored: reads records in batches, yielding to the event loop between them (${c.name})`, () =>
      withStore({ keepSeconds: 86_400 * 366, maxBytes: 1 << 30 }, async (store, db) => {
        // Straight into the table: append's pruning makes writing many records slow.
        const insert = db.prepare("INSERT INTO poll_records (kind, time, bytes, body) VALUES (?, ?, ?, ?)");
        const [poll, remediation] = [encodePollRecord(record(NOW)), encodePollRecord(remediationRecordAt(NOW))];
        for (let i = 0; i < c.polls; i++) {
          insert.run("intake", NOW + i * MINUTE, poll.length, poll);
          insert.run("health-check", NOW + i * MINUTE, remediation.length, remediation);
        }
        let yielded = false;
        setImmediate(() => (yielded = true));
        const read = await store.stored("intake", c.since, c.limit);
        assert.equal(yielded, c.yields, "the event loop ran between batches");
        assert.deepEqual(
          read.times,
          c.expected.map((i) => NOW + i * MINUTE),
        );
        assert.equal(read.bodies.length, c.expected.length);
      }));
  }

  it("drops records older than keep_days as new ones are written", async () =>
    withStore({ keepSeconds: 86_400, maxBytes: 1 << 30 }, async (store) => {
      store.append("intake", record(NOW));
      store.append("intake", record(NOW + DAY / 2));
      store.append("intake", record(NOW + DAY + 1));
      assert.deepEqual(
        (await store.since(0, 10)).records.map((r) => r.time),
        [NOW + DAY / 2, NOW + DAY + 1],
      );
    }));

  it("drops the oldest records once the kept bytes pass max_bytes, keeping the newest", async () =>
    withStore({ keepSeconds: 86_400, maxBytes: 40_000 }, async (store) => {
      for (let i = 0; i < 20; i++) store.append("intake", record(NOW + i * MINUTE, 1000));
      const { records, bytes } = store.size();
      assert.ok(bytes <= 40_000, `${bytes} bytes kept`);
      assert.ok(records >= 1 && records < 20, `${records} records kept`);
      assert.equal((await store.since(0, 100)).records.at(-1)?.time, NOW + 19 * MINUTE);
    }));

  it("keeps remediation records apart from poll records, validated the same way", () =>
    withStore({ keepSeconds: 86_400, maxBytes: 1 << 30 }, async (store, db) => {
      const remediation = remediationRecordAt(NOW);
      store.append("health-check", remediation);
      store.append("intake", record(NOW));
      const broken = encodeRaw(JSON.stringify({ ...remediation, unhealthy: { ...remediation.unhealthy, machineType: [] } }));
      db.prepare("INSERT INTO poll_records (kind, time, bytes, body) VALUES ('health-check', ?, ?, ?)").run(NOW + 1, broken.length, broken);
      assert.deepEqual(await store.remediations(0, 10), { records: [remediation], unreadable: 1 });
      assert.deepEqual(
        (await store.since(0, 10)).records.map((r) => r.time),
        [NOW],
      );
    }));

  const hostile: Array<[string, Buffer]> = [
    ["not deflated", Buffer.from("{}")],
    ["deflated, not JSON", encodeRaw("not json")],
    ["columns of different lengths", encodeRaw(JSON.stringify({ ...record(NOW, 2), machines: { ...record(NOW, 2).machines, rack: [1] } }))],
    ["a type index past the dictionary", encodeRaw(JSON.stringify({ ...record(NOW, 1), machines: { ...record(NOW, 1).machines, type: [7] } }))],
    ["an unknown key", encodeRaw(JSON.stringify({ ...record(NOW), extra: 1 }))],
  ];
  for (const [name, body] of hostile) {
    it(`counts a stored record that is ${name} as unreadable and reads the others`, async () =>
      withStore({ keepSeconds: 86_400, maxBytes: 1 << 30 }, async (store, db) => {
        store.append("intake", record(NOW));
        db.prepare("INSERT INTO poll_records (kind, time, bytes, body) VALUES ('intake', ?, ?, ?)").run(NOW + 1, body.length, body);
        store.append("intake", record(NOW + 2));
        const read = await store.since(0, 10);
        assert.deepEqual([read.records.map((r) => r.time), read.unreadable], [[NOW, NOW + 2], 1]);
      }));
  }
});

/** A stored body as a hostile writer would make it: any text, deflated as kintsugi deflates. */
function encodeRaw(text: string): Buffer {
  return deflateRawSync(Buffer.from(text));
}
