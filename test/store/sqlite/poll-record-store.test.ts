import assert from "node:assert/strict";
import { join } from "node:path";
import { deflateRawSync } from "node:zlib";
import { describe, it } from "node:test";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { SqlitePollRecordStore } from "../../../src/store/sqlite/poll-record-store.js";
import { NOW } from "../../support/fixtures.js";
import { randomPollRecord, remediationRecordAt } from "../../support/replay-records.js";
import { tempDir } from "../../support/temp-dir.js";

const MINUTE = 60_000;
const DAY = 86_400_000;

const record = (time: number, n = 1) => randomPollRecord(time, n);

async function withStore(keep: { keepSeconds: number; maxBytes: number }, scenario: (store: SqlitePollRecordStore, db: ReturnType<typeof openDatabase>) => Promise<void>): Promise<void> {
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

  it("drops records older than keep_days as new ones are written", async () =>
    withStore({ keepSeconds: 86_400, maxBytes: 1 << 30 }, async (store) => {
      store.append("intake", record(NOW));
      store.append("intake", record(NOW + DAY / 2));
      store.append("intake", record(NOW + DAY + 1));
      assert.deepEqual((await store.since(0, 10)).records.map((r) => r.time), [NOW + DAY / 2, NOW + DAY + 1]);
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
      assert.deepEqual((await store.since(0, 10)).records.map((r) => r.time), [NOW]);
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
