import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parse } from "graphql";
import { parseCounting, TooManySelections } from "../../src/graphql/limits/counting-parser.js";
import { selectionWeight } from "../../src/graphql/limits/selection-count.js";

const repeated = (n: number, field: string) => `{ ${`${field} `.repeat(n)} }`;

describe("selectionWeight (selections, fragments expanded, repeats weighed by the comparisons validating them takes)", () => {
  const cases: Array<{ name: string; query: string; weight: number }> = [
    { name: "one field", query: "{ a }", weight: 1 },
    { name: "distinct fields and their subfields", query: "{ a { b c } d }", weight: 4 },
    { name: "aliases are distinct response names", query: "{ x: a { b } y: a { b } }", weight: 4 },
    // Two fields of 2 selections each: 4 selections, and 2 x 2 comparisons.
    { name: "a field with a subfield written twice", query: "{ a { b } a { b } }", weight: 4 + 4 },
    { name: "a leaf written three times", query: "{ a a a }", weight: 3 + 3 },
    { name: "repeats are counted in every selection set", query: "{ a { b b } }", weight: 3 + 1 },
    { name: "a fragment's fields count where it is spread, and once as written", query: "{ ...F ...F } fragment F on Query { a }", weight: 2 + 1 + 1 },
    {
      name: "a fragment's fields merge with the set it is spread in",
      query: "{ a { b } ...F } fragment F on Query { a { c } }",
      weight: 4 + 4 + 2,
    },
    { name: "an inline fragment's set is compared on its own and merged", query: "{ a ... on Query { a } }", weight: 2 + 1 },
    {
      name: "a fragment spread in a fragment: each level doubles",
      query: "{ ...F2 } fragment F2 on Query { ...F1 ...F1 } fragment F1 on Query { ...F0 ...F0 } fragment F0 on Query { x: a }",
      // 4 selections of x, whose pairs weigh (4^2 - 4)/2 = 6 in the operation and in F2's definition, (2^2 - 2)/2 = 1 in
      // F1's; and the definitions as written (4, 2 and 1, expanded).
      weight: 4 + 6 + 6 + 1 + 4 + 2 + 1,
    },
    {
      name: "a fragment cycle weighs nothing past its first turn",
      query: "{ ...A } fragment A on Query { a ...B } fragment B on Query { b ...A }",
      // The operation a, b; A as written a, b; B as written b (its spread of A, a cycle, weighs nothing).
      weight: 2 + 2 + 1,
    },
    { name: "a spread of an unknown fragment weighs nothing", query: "{ a ...Nowhere }", weight: 1 },
    { name: "every operation of the document counts", query: "query A { a } query B { b c }", weight: 3 },
    {
      name: "a field with a subfield written 1,240 times",
      query: repeated(1_240, "constraints { __typename }"),
      weight: 2_480 + (4 * 1_240 * 1_240 - 4 * 1_240) / 2,
    },
  ];
  for (const { name, query, weight } of cases) {
    it(name, () => assert.equal(selectionWeight(parse(query), Number.MAX_SAFE_INTEGER), weight));
  }

  it("stops counting once past the limit, returning the total so far", () => {
    const weight = selectionWeight(parse(repeated(1_240, "constraints { __typename }")), 100);
    assert.ok(weight > 100 && weight < 200, String(weight));
  });

  it("stops expanding fragments past the limit: 2^40 selections cost no more than the limit to find", () => {
    const fragments = Array.from({ length: 40 }, (_, i) => `fragment F${i + 1} on Query { ...F${i} ...F${i} }`).join(" ");
    const query = `{ ...F40 } ${fragments} fragment F0 on Query { a }`;
    const began = performance.now();
    assert.ok(selectionWeight(parse(query), 2_000) > 2_000);
    assert.ok(performance.now() - began < 1_000);
  });
});

describe("parseCounting (selections weighed while parsing, as written)", () => {
  it("stops parsing a field written 1,240 times after about a hundred tokens", () => {
    const query = repeated(1_240, "constraints { __typename }");
    assert.throws(() => parseCounting(query, {}, 2_000), TooManySelections);
    // Read up to the first field past the limit: 32 of the 1,240 (32 fields of 2 weigh 64 + 4 x 31 x 32 / 2).
    const within = parseCounting(repeated(31, "constraints { __typename }"), {}, 2_000);
    assert.equal(within.definitions.length, 1);
  });

  it("weighs at most what selectionWeight weighs, for every case above", () => {
    for (const query of [
      "{ a { b } a { b } }",
      "{ ...F ...F } fragment F on Query { a a }",
      "{ a ... on Query { a a } }",
      "fragment Unused on Query { a { b c } a { b } }",
      repeated(300, "x"),
    ]) {
      const full = selectionWeight(parse(query), Number.MAX_SAFE_INTEGER);
      assert.doesNotThrow(() => parseCounting(query, {}, full), query);
      assert.throws(() => parseCounting(query, {}, 0), TooManySelections);
    }
  });
});
