import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildSchema } from "../../src/graphql/schema.js";
import { SubscriptionDocuments } from "../../src/graphql/subscription-documents.js";

describe("SubscriptionDocuments", () => {
  const documents = new SubscriptionDocuments(buildSchema());
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
