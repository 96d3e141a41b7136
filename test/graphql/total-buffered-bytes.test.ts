import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { capTotalBuffered, overTotalBuffered, totalBufferedReason } from "../../src/graphql/limits/total-buffered-bytes.js";

const connection = (name: string, bufferedAmount: number, readyState = 1) => ({ name, bufferedAmount, readyState });

describe("overTotalBuffered (which connections the server-wide bound closes)", () => {
  const cases: Array<{ name: string; held: ReturnType<typeof connection>[]; max: number; closed: string[] }> = [
    { name: "nothing at the bound", held: [connection("a", 600), connection("b", 400)], max: 1000, closed: [] },
    {
      name: "the one holding the most, when that brings the rest within the bound",
      held: [connection("a", 300), connection("b", 800)],
      max: 1000,
      closed: ["b"],
    },
    {
      name: "as many as it takes, the most first",
      held: [connection("a", 500), connection("b", 900), connection("c", 700), connection("d", 100)],
      max: 1000,
      closed: ["b", "c"],
    },
    { name: "a connection already closing is neither counted nor chosen", held: [connection("a", 5000, 2), connection("b", 800)], max: 1000, closed: [] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(
        overTotalBuffered(c.held, c.max).close.map(([held, bytes]) => [held.name, bytes]),
        c.closed.map((name) => [name, c.held.find((h) => h.name === name)?.bufferedAmount]),
      );
    });
  }
});

describe("capTotalBuffered", () => {
  it("closes the chosen connections with 1013 and a reason naming the limit (within a close frame's 123 bytes), and says so", () => {
    const calls: string[] = [];
    const socket = (name: string, bufferedAmount: number) => ({
      bufferedAmount,
      readyState: 1,
      close: (code: number, reason: string) => void calls.push(`${name} close ${code} ${reason}`),
      terminate: () => undefined,
    });
    const told: Array<[number, number]> = [];
    const max = 64 * 1024 * 1024;
    const check = capTotalBuffered(
      () => [socket("a", max), socket("b", 2)] as never,
      max,
      (bytes, total) => void told.push([bytes, total]),
    );
    check();
    assert.deepEqual(calls, [`a close 1013 ${totalBufferedReason(max)}`]);
    assert.deepEqual(told, [[max, max + 2]]);
    assert.match(totalBufferedReason(max), /limits\.max_total_buffered_bytes/);
    assert.ok(Buffer.byteLength(totalBufferedReason(Number.MAX_SAFE_INTEGER)) <= 123);
  });
});
