import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closeSlowReader, subscriptionLimitError, type BufferedSocket } from "../../src/graphql/limits/websocket-limits.js";

function socket(bufferedAmount: number, readyState = 1) {
  const calls: string[] = [];
  const s: BufferedSocket = {
    bufferedAmount,
    readyState: readyState as BufferedSocket["readyState"],
    close: (code?: number, reason?: string | Buffer) => void calls.push(`close ${code} ${String(reason)}`),
    terminate: () => void calls.push("terminate"),
  };
  return { s, calls };
}

describe("closeSlowReader (called before each event is sent)", () => {
  const cases: Array<{ name: string; buffered: number; readyState?: number; closes: boolean }> = [
    { name: "a socket at the bound is left open", buffered: 1000, closes: false },
    { name: "a socket past the bound is closed, saying why", buffered: 1001, closes: true },
    { name: "a socket already closing is left alone", buffered: 5000, readyState: 2, closes: false },
  ];
  for (const { name, buffered, readyState, closes } of cases) {
    it(name, () => {
      const { s, calls } = socket(buffered, readyState);
      assert.equal(closeSlowReader(s, 1000), closes);
      assert.deepEqual(calls, closes ? ["close 1008 stopped reading: more than 1000 bytes unsent (limits.max_buffered_bytes)"] : []);
    });
  }
});

describe("subscriptionLimitError", () => {
  const cases: Array<{ name: string; open: number; refused: boolean }> = [
    { name: "the last one allowed", open: 2, refused: false },
    { name: "one past the limit", open: 3, refused: true },
  ];
  for (const { name, open, refused } of cases) {
    it(name, () => {
      const subscriptions = Object.fromEntries(Array.from({ length: open }, (_, i) => [String(i), null]));
      const error = subscriptionLimitError(subscriptions, 2);
      assert.equal(error?.extensions["limit"] ?? null, refused ? "limits.max_subscriptions_per_connection" : null);
    });
  }
});
