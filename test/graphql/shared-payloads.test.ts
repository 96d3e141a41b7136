import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { nextMessageHead, payloadTail, sharedPayloadReplacer, takeSharedPayload } from "../../src/graphql/shared-payloads.js";

// As graphql-ws serialises a message with its jsonMessageReplacer.
const serialise = (message: object) => JSON.stringify(message, sharedPayloadReplacer);

describe("shared payloads (a subscription event serialised once for all who share it)", () => {
  const payload = { data: { repairEntryEvents: { kind: "CREATED", entry: { index: "7", serial: 'quote " and \u0000' } } } };

  it("splits a next message into its own head and the payload's JSON, made once for every message of that payload", () => {
    const messages = ["1", "two"].map((id) => ({ id, type: "next", payload }));
    const split = messages.map((m) => takeSharedPayload(serialise(m)));
    for (const [i, m] of messages.entries()) assert.equal(`${split[i]?.head}${split[i]?.tail.toString()}`, JSON.stringify(m));
    assert.equal(split[0]?.tail, split[1]?.tail, "one buffer for both");
  });

  const untouched: Array<[string, object]> = [
    ["an error message", { id: "1", type: "error", payload: [{ message: "no" }] }],
    ["a complete message", { id: "1", type: "complete" }],
    ["a ping with a payload", { type: "ping", payload: { payload: { x: 1 } } }],
    ["a next message whose payload is not an object", { id: "1", type: "next", payload: null }],
  ];
  for (const [name, message] of untouched) {
    it(`leaves ${name} whole`, () => {
      const text = serialise(message);
      assert.equal(text, JSON.stringify(message));
      assert.equal(takeSharedPayload(text), null);
    });
  }

  it("splits nothing that the replacer did not just take", () => {
    serialise({ id: "1", type: "next", payload });
    takeSharedPayload("{}");
    assert.equal(takeSharedPayload(serialise({ id: "2", type: "complete" })), null);
  });

  const ids: Array<[string, string]> = [
    ["a plain id", "1"],
    ["an id with quotes and a backslash", 'a"b\\c'],
    ["an id with a control character", "x\u0001y"],
  ];
  for (const [name, id] of ids) {
    it(`writes the next message of ${name} as graphql-ws writes it, its tail the payload's one buffer`, () => {
      const written = { head: nextMessageHead(id), tail: payloadTail(payload) };
      assert.equal(`${written.head}${written.tail.toString()}`, JSON.stringify({ id, type: "next", payload }));
      assert.equal(written.tail, takeSharedPayload(serialise({ id, type: "next", payload }))?.tail, "the same buffer as graphql-ws's own messages share");
    });
  }
});
