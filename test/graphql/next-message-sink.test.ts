import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse, type ExecutionResult } from "graphql";
import type { WebSocket } from "ws";
import { nextMessageSink, type BeforeNext } from "../../src/graphql/next-message-sink.js";
import { ENDED } from "../../src/graphql/pushed-subscription.js";

const OPEN = 1;
const CLOSING = 2;
const result: ExecutionResult = { data: { said: "hi" } };
const args = { schema: undefined as never, document: parse("subscription { said }") };

/** A socket that records the text it is sent. */
function socket(readyState: number) {
  const sent: string[] = [];
  const s = { readyState, OPEN, send: (text: string) => sent.push(text) };
  return { s, sent, ws: s as unknown as WebSocket };
}

describe("nextMessageSink (a pushed subscription's events written to its connection)", () => {
  const cases: Array<{ name: string; state: number; before: (s: { readyState: number }) => BeforeNext; sends: boolean; ends: RegExp | typeof ENDED | null }> = [
    { name: "an open connection is sent graphql-ws's next message", state: OPEN, before: () => (_s, _id, _a, r) => r, sends: true, ends: null },
    {
      name: "a connection that is closing ends the subscription as done, sending nothing",
      state: CLOSING,
      before: () => (_s, _id, _a, r) => r,
      sends: false,
      ends: ENDED,
    },
    {
      name: "a check that refuses the event ends the subscription with its error",
      state: OPEN,
      before: () => () => new Error("fell behind"),
      sends: false,
      ends: /^Error: fell behind$/,
    },
    {
      name: "a check that closed the connection (a slow reader) ends the subscription as done, sending nothing",
      state: OPEN,
      before: (s) => (_s, _id, _a, r) => ((s.readyState = CLOSING), r),
      sends: false,
      ends: ENDED,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { s, sent, ws } = socket(c.state);
      const err = nextMessageSink(ws, 'a"1', args, c.before(s)).next(result);
      assert.deepEqual(sent, c.sends ? ['{"id":"a\\"1","type":"next","payload":{"data":{"said":"hi"}}}'] : []);
      if (c.ends instanceof RegExp) assert.match(String(err), c.ends);
      else assert.equal(err, c.ends);
    });
  }
});
