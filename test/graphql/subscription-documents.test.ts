import assert from "node:assert/strict";
import type { GraphQLError } from "graphql";
import { describe, it } from "node:test";
import { buildSchema } from "../../src/graphql/schema.js";
import { SubscriptionDocuments } from "../../src/graphql/subscription-documents.js";
import { OperationLimits } from "../../src/graphql/limits/operation-limits.js";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";

const schema = buildSchema();

describe("SubscriptionDocuments", () => {
  const documents = new SubscriptionDocuments(schema, new OperationLimits(schema, DEFAULT_LIMITS), DEFAULT_LIMITS.subscriptionCacheBytes);
  const QUERY = "subscription { repairEntryEvents { kind entry { index } } }";

  it("hands every identical query the same parsed document", () => {
    const a = documents.get(QUERY);
    assert.ok(!Array.isArray(a));
    assert.equal(documents.get(QUERY), a);
    assert.notEqual(documents.get(`${QUERY} `), a, "another text is another document");
  });

  const invalid: Array<[string, string, RegExp]> = [
    ["a syntax error", "subscription { repairEntryEvents {", /^Syntax Error: Expected Name, found <EOF>\.$/],
    ["an unknown field", "subscription { repairEntryEvents { bogus } }", /^Cannot query field "bogus" on type "RepairEntryEvent"\.$/],
    ["a variable of the wrong type", "subscription ($h: Int) { repairEntryEvents(having: $h) { kind } }", /Variable "\$h" of type "Int" used in position expecting type "RepairEntryParams"/],
  ];
  for (const [name, query, want] of invalid) {
    it(`answers ${name} with its errors, every time`, () => {
      const errors = documents.get(query);
      assert.ok(Array.isArray(errors), "errors, not a document");
      assert.match((errors as readonly Error[])[0]?.message ?? "", want);
      assert.equal(documents.get(query), errors);
    });
  }
});

describe("SubscriptionDocuments bounds", () => {
  const query = (n: number) => `subscription S${n} { repairEntryEvents { kind } }`;

  it("keeps no more query text than its byte bound: past it, the cache starts over", () => {
    const one = Buffer.byteLength(query(10));
    const documents = new SubscriptionDocuments(schema, new OperationLimits(schema, DEFAULT_LIMITS), one * 3);
    const first = documents.get(query(10));
    for (let n = 11; n < 13; n++) documents.get(query(n));
    assert.equal(documents.bytes, one * 3);
    assert.equal(documents.get(query(10)), first, "still kept at the bound");
    documents.get(query(13));
    assert.equal(documents.bytes, one, "started over with the newcomer");
    assert.notEqual(documents.get(query(10)), first, "parsed again");
  });

  it("never keeps a text larger than the whole bound", () => {
    const big = `subscription { repairEntryEvents { kind } } ${"#".repeat(200)}\n`;
    const documents = new SubscriptionDocuments(schema, new OperationLimits(schema, DEFAULT_LIMITS), 100);
    assert.ok(!Array.isArray(documents.get(big)));
    assert.equal(documents.bytes, 0);
  });

  it("keeps a document only after it passed the operation limits", () => {
    const documents = new SubscriptionDocuments(schema, new OperationLimits(schema, { ...DEFAULT_LIMITS, maxAliases: 1 }), DEFAULT_LIMITS.subscriptionCacheBytes);
    const errors = documents.get("subscription { repairEntryEvents { a: kind b: kind } }");
    assert.ok(Array.isArray(errors));
    assert.equal((errors as readonly GraphQLError[])[0]?.extensions["type"], "QUERY_TOO_COMPLEX");
    assert.equal((errors as readonly GraphQLError[])[0]?.extensions["limit"], "limits.max_aliases");
  });
});
