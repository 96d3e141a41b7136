import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, print, type ExecutionArgs, type ExecutionResult } from "graphql";
import { resultKey, sharedResults } from "../../src/graphql/shared-results.js";

const isPromise = (value: unknown): value is Promise<unknown> => typeof (value as { then?: unknown })?.then === "function";

const schema = new GraphQLSchema({
  query: new GraphQLObjectType({ name: "Query", fields: { x: { type: GraphQLString } } }),
  subscription: new GraphQLObjectType({
    name: "Subscription",
    fields: {
      said: {
        type: GraphQLString,
        args: { suffix: { type: GraphQLString } },
        resolve: (p: { text: string }, a: { suffix?: string }) => p.text + (a.suffix ?? ""),
      },
      // A field that loads, as a join or the entry's history does.
      loaded: { type: GraphQLString, resolve: async (p: { text: string }) => p.text },
    },
  }),
});
const args = (query: string, variableValues?: Record<string, unknown>): ExecutionArgs => ({ schema, document: parse(query), variableValues });

describe("sharedResults (one execution of an event for every subscription of the same document and variables)", () => {
  const cases: Array<[string, ExecutionArgs, ExecutionArgs, boolean]> = [
    ["the same text parsed twice", args("subscription { said }"), args("subscription { said }"), true],
    [
      "the same variables",
      args("subscription ($s: String) { said(suffix: $s) }", { s: "!" }),
      args("subscription ($s: String) { said(suffix: $s) }", { s: "!" }),
      true,
    ],
    [
      "other variables",
      args("subscription ($s: String) { said(suffix: $s) }", { s: "!" }),
      args("subscription ($s: String) { said(suffix: $s) }", { s: "?" }),
      false,
    ],
    ["another document", args("subscription { said }"), args('subscription { said(suffix: "!") }'), false],
  ];
  for (const [name, a, b, shared] of cases) {
    it(`${shared ? "shares" : "does not share"} the result of an event between ${name}`, () => {
      const payload = { text: "hi" };
      const [ra, rb] = [sharedResults(a)(payload), sharedResults(b)(payload)];
      assert.equal(ra === rb, shared);
      assert.notEqual(sharedResults(a)({ text: "hi" }), ra, "another event, another result");
    });
  }

  const keys: Array<[string, ExecutionArgs, (printed: string) => string]> = [
    ["without variables or an operation name, the printed document itself (one string for all its subscriptions)", args("subscription { said }"), (p) => p],
    ["with empty variables, the same", args("subscription { said }", {}), (p) => p],
    ["with variables, the printed document and them", args("subscription ($s: String) { said(suffix: $s) }", { s: "!" }), (p) => `\u0000${p}\u0000{"s":"!"}`],
    ["with an operation name, it and the printed document", { ...args("subscription S { said }"), operationName: "S" }, (p) => `S\u0000${p}\u0000{}`],
  ];
  for (const [name, a, expected] of keys) {
    it(`keys a subscription ${name}`, () => assert.equal(resultKey(a), expected(print(a.document))));
  }

  it("hands a result that waited as a promise until it settles, then as the value itself", async () => {
    const [first, later] = [sharedResults(args("subscription { loaded }")), sharedResults(args("subscription { loaded }"))];
    const payload = { text: "hi" };
    const pending = first(payload);
    assert.ok(isPromise(pending));
    assert.equal(later(payload), pending, "asked before it settled: the same promise");
    const value = await pending;
    const settled = later(payload) as ExecutionResult;
    assert.equal(isPromise(settled), false, "asked after it settled: no promise of its own to wait on");
    assert.equal(settled, value);
    assert.deepEqual(JSON.parse(JSON.stringify(settled)), { data: { loaded: "hi" } });
  });
});
