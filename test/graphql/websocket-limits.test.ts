import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { closeSlowReader, subscriptionLimitError, UnreadBytes, type BufferedSocket } from "../../src/graphql/limits/websocket-limits.js";

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
  const cases: Array<{ name: string; buffered: number; unread?: number; readyState?: number; closes: boolean }> = [
    { name: "a socket at the bound is left open", buffered: 1000, closes: false },
    { name: "a socket past the bound is closed, saying why", buffered: 1001, closes: true },
    { name: "a socket whose client has not read past the bound is closed, whatever is left in userland", buffered: 0, unread: 1001, closes: true },
    { name: "a socket whose client read all but the bound is left open", buffered: 0, unread: 1000, closes: false },
    { name: "a socket already closing is left alone", buffered: 5000, readyState: 2, closes: false },
  ];
  for (const { name, buffered, unread, readyState, closes } of cases) {
    it(name, () => {
      const { s, calls } = socket(buffered, readyState);
      assert.equal(closeSlowReader(s, unread ?? 0, 1000), closes);
      assert.deepEqual(calls, closes ? ["close 1008 stopped reading: more than 1000 bytes sent and not read (limits.max_buffered_bytes)"] : []);
    });
  }
});

describe("UnreadBytes (what a client has not shown it read: everything written since the last probe it answered)", () => {
  function metered() {
    const connection = { bytesWritten: 100 };
    const pings: Buffer[] = [];
    let pong: (data: Buffer) => void = () => undefined;
    const meter = new UnreadBytes(
      { readyState: 1, ping: (data?: unknown) => void pings.push(data as Buffer), on: (_event: "pong", listener: (data: Buffer) => void) => (pong = listener) },
      connection,
    );
    return { meter, connection, pings, answer: (data = pings.at(-1)!) => pong(data) };
  }

  it("counts from the connection's start, and probes only when there is something new to acknowledge", () => {
    const { meter, connection, pings } = metered();
    meter.probe();
    assert.deepEqual([meter.count, pings.length], [0, 0]);
    connection.bytesWritten += 500;
    meter.probe();
    meter.probe();
    assert.deepEqual([meter.count, pings.length], [500, 1], "one probe out at a time");
  });

  it("an answered probe acknowledges what was written before it, not after", () => {
    const { meter, connection, answer } = metered();
    connection.bytesWritten += 500;
    meter.probe();
    connection.bytesWritten += 300;
    answer();
    assert.equal(meter.count, 300);
  });

  it("a client that stops reading never answers: everything since counts, however much the kernel took in", () => {
    const { meter, connection, pings } = metered();
    for (let i = 0; i < 100; i++) {
      connection.bytesWritten += 1_000;
      meter.probe();
    }
    assert.deepEqual([meter.count, pings.length], [100_000, 1]);
  });

  it("a pong that is not an answer to its probe (a keep-alive's) acknowledges nothing", () => {
    const { meter, connection, answer } = metered();
    connection.bytesWritten += 500;
    meter.probe();
    answer(Buffer.alloc(0));
    assert.equal(meter.count, 500);
  });
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
