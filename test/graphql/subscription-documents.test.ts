import assert from "node:assert/strict";
import type { GraphQLError } from "graphql";
import { describe, it } from "node:test";
import { buildSchema } from "../../src/graphql/schema.js";
import { BYTES_PER_TOKEN, SubscriptionDocuments } from "../../src/graphql/subscription-documents.js";
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
    [
      "a variable of the wrong type",
      "subscription ($h: Int) { repairEntryEvents(having: $h) { kind } }",
      /Variable "\$h" of type "Int" used in position expecting type "RepairEntryParams"/,
    ],
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
  const limits = new OperationLimits(schema, DEFAULT_LIMITS);
  /** What keeping one document of `query(n)`'s shape is estimated to cost, for n of two digits. */
  const weight = (() => {
    const probe = new SubscriptionDocuments(schema, limits, DEFAULT_LIMITS.subscriptionCacheBytes);
    probe.get(query(10));
    return probe.bytes;
  })();

  it("weighs a document by its tokens, about 500 bytes each, not by its text", () => {
    // subscription, S10, {, repairEntryEvents, {, kind, }, } and the start and end of the text.
    assert.equal(weight, Buffer.byteLength(query(10)) + 10 * BYTES_PER_TOKEN);
  });

  it("keeps no more than its byte bound: past it, the cache starts over", () => {
    const documents = new SubscriptionDocuments(schema, limits, weight * 3);
    const first = documents.get(query(10));
    for (let n = 11; n < 13; n++) documents.get(query(n));
    assert.equal(documents.bytes, weight * 3);
    assert.equal(documents.get(query(10)), first, "still kept at the bound");
    documents.get(query(13));
    assert.equal(documents.bytes, weight, "started over with the newcomer");
    assert.notEqual(documents.get(query(10)), first, "parsed again");
  });

  it("bounds what large distinct documents keep alive, invalid ones included (their errors hold the whole document)", () => {
    // 4,000 tokens in 16 kB of text hold about 2 MB once parsed; by text, 500 of them would fit in 8 MiB.
    const large = (n: number, field: string) => `subscription L${n} { repairEntryEvents { ${`${field} `.repeat(4000)}} }`;
    // Written 4,000 times in one selection set, a field passes max_selections: raised here, so these are parsed and kept.
    const lenient = new OperationLimits(schema, { ...DEFAULT_LIMITS, maxSelections: Number.MAX_SAFE_INTEGER });
    for (const field of ["kind", "nope"]) {
      const documents = new SubscriptionDocuments(schema, lenient, 8 * 1024 * 1024);
      const first = documents.get(large(0, field));
      for (let n = 1; n < 10; n++) documents.get(large(n, field));
      assert.ok(documents.bytes <= 8 * 1024 * 1024, `${field}: ${documents.bytes} bytes kept`);
      assert.ok(documents.bytes >= 4000 * BYTES_PER_TOKEN, `${field}: weighed by its tokens`);
      assert.notEqual(documents.get(large(0, field)), first, `${field}: the first was let go`);
    }
  });

  it("never keeps a document that alone passes the whole bound", () => {
    const documents = new SubscriptionDocuments(schema, limits, weight - 1);
    assert.ok(!Array.isArray(documents.get(query(10))));
    assert.equal(documents.bytes, 0);
  });

  it("keeps a document only after it passed the operation limits", () => {
    const documents = new SubscriptionDocuments(
      schema,
      new OperationLimits(schema, { ...DEFAULT_LIMITS, maxAliases: 1 }),
      DEFAULT_LIMITS.subscriptionCacheBytes,
    );
    const errors = documents.get("subscription { repairEntryEvents { a: kind b: kind } }");
    assert.ok(Array.isArray(errors));
    assert.equal((errors as readonly GraphQLError[])[0]?.extensions["type"], "QUERY_TOO_COMPLEX");
    assert.equal((errors as readonly GraphQLError[])[0]?.extensions["limit"], "limits.max_aliases");
  });
});
