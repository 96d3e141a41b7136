import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GraphQLError } from "graphql";
import { eventSizeBound, jsonBytesUpTo, oversizedAnswer, responseSizePlugin } from "../../src/graphql/limits/response-size.js";
import { TURN_BYTES } from "../../src/graphql/limits/answer-turns.js";

const nullPrototype = (fields: Record<string, unknown>) => Object.assign(Object.create(null) as object, fields);

describe("jsonBytesUpTo", () => {
  const CASES: Array<[string, unknown]> = [
    ["an empty object", {}],
    ["an empty list", []],
    ["scalars", { a: 1, b: -2.5, c: true, d: false, e: null, f: "text", g: 1e21, h: Number.NaN }],
    ["strings JSON escapes", { quote: 'a "b"', backslash: "c\\d", control: "e\u0001\n\t", del: "\u007f" }],
    ["non-ASCII text, as UTF-8", { serial: "é日本🙂", bidi: "\u202eabc" }],
    ["keys that need escaping", { 'k"ey': 1, ké: 2 }],
    ["undefined and functions left out of objects", { a: undefined, b: () => 1, c: 1 }],
    ["undefined and functions written as null in lists", [undefined, () => 1, 1]],
    ["nested lists and objects", { data: { list: [{ a: [1, 2, [3]] }, { b: {} }], n: [] } }],
    ["null-prototype objects, as graphql-js builds answers", { data: nullPrototype({ entries: [nullPrototype({ index: "1", deleted: false })] }) }],
    ["toJSON honoured", { when: new Date(0), error: new GraphQLError("boom", { extensions: { code: "X" } }) }],
  ];
  for (const [name, value] of CASES) {
    it(`counts ${name} as JSON.stringify writes them`, () => assert.equal(jsonBytesUpTo(value, Infinity), Buffer.byteLength(JSON.stringify(value))));
  }

  it("stops soon after passing the bound, without walking the rest", () => {
    let visited = 0;
    const items = Array.from({ length: 10_000 }, () => ({
      toJSON() {
        visited++;
        return "x".repeat(100);
      },
    }));
    assert.ok(jsonBytesUpTo({ items }, 100_000) > 100_000);
    assert.ok(visited < 1_000, `visited ${visited} of 10,000 items`);
  });
});

describe("eventSizeBound", () => {
  it("replaces an event larger than the bound with an error naming limits.max_response_bytes, and lets a smaller one through", () => {
    const bound = eventSizeBound(100);
    assert.equal(bound({ data: { a: "x".repeat(50) } }), undefined);
    assert.deepEqual(bound({ data: { a: "x".repeat(200) } }), oversizedAnswer(100));
    assert.match(oversizedAnswer(100).errors?.[0]?.message ?? "", /larger than 100 bytes \(limits\.max_response_bytes\)/);
    assert.deepEqual(oversizedAnswer(100).errors?.[0]?.extensions, { type: "LIMIT_EXCEEDED", code: "BAD_REQUEST", limit: "limits.max_response_bytes" });
  });
});

describe("responseSizePlugin (an HTTP answer measured before Apollo serialises it)", () => {
  /** Runs the plugin's willSendResponse on `answer` with a budget that estimated it at `spent` bytes; the turns it waited. */
  async function sent(answer: object, spent: number, maxBytes = 1 << 20): Promise<{ turns: number; body: unknown }> {
    let turns = 0;
    const plugin = responseSizePlugin<{ answerBudget: { exceeded: boolean; spent: number } }>(maxBytes, async () => void turns++);
    const hooks = await plugin.requestDidStart!({} as never);
    const response = { body: { kind: "single" as const, singleResult: answer } };
    await hooks!.willSendResponse!({ response, contextValue: { answerBudget: { exceeded: false, spent } } } as never);
    return { turns, body: response.body.singleResult };
  }

  for (const { name, spent, turns } of [
    { name: "a short answer is measured and sent in the turn that built it", spent: 100, turns: 0 },
    { name: "a long answer is measured in a turn of its own and serialised in the next", spent: TURN_BYTES + 1, turns: 2 },
  ]) {
    it(name, async () => assert.equal((await sent({ data: { a: 1 } }, spent)).turns, turns));
  }

  it("replaces an answer larger than the bound whatever its length", async () => {
    const { body } = await sent({ data: { serial: "x".repeat(100) } }, TURN_BYTES + 1, 50);
    assert.deepEqual(body, oversizedAnswer(50));
  });
});
