import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { PACK_BATCH, packRecords, unpackRecords } from "../../src/graphql/replay/packed-records.js";

const body = (i: number) => Buffer.from(JSON.stringify({ time: i, padding: "x".repeat(i % 7) }));
const decode = (bytes: Uint8Array) => ({ ok: true as const, record: JSON.parse(Buffer.from(bytes).toString("utf8")) as { time: number } });

// A month of polls is tens of MB: packed at once, the copy held the event loop for up to a second (measured by bench:abuse).
const CASES = [
  { name: "no record", records: 0, yields: false },
  { name: "one batch exactly", records: PACK_BATCH, yields: false },
  { name: "a batch and one more record", records: PACK_BATCH + 1, yields: true },
  { name: "three batches and some", records: 3 * PACK_BATCH + 5, yields: true },
];

describe("packRecords", () => {
  for (const c of CASES) {
    it(`packs every record in order into one buffer of its own, yielding between batches (${c.name})`, async () => {
      const times = Array.from({ length: c.records }, (_, i) => i);
      let yielded = false;
      setImmediate(() => (yielded = true));
      const packed = await packRecords({ bodies: times.map(body), times, unreadable: 0 });
      assert.equal(yielded, c.yields, "the event loop ran between batches");
      assert.equal(packed.bytes.byteOffset, 0);
      assert.equal(packed.bytes.buffer.byteLength, packed.bytes.byteLength, "the buffer is the records' alone");
      assert.deepEqual(unpackRecords(packed, decode), { records: times.map((time) => ({ time, padding: "x".repeat(time % 7) })), unreadable: 0 });
    });
  }
});
