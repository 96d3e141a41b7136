import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { jsonNestedDeeperThan, variableDepthError } from "../../src/graphql/limits/variable-depth.js";

describe("jsonNestedDeeperThan (a JSON text's nesting, read before it is parsed)", () => {
  const cases: Array<{ name: string; json: string; depth: number }> = [
    { name: "a scalar", json: "3", depth: 0 },
    { name: "an empty object", json: "{}", depth: 1 },
    { name: "an object holding an array", json: '{"a":[1]}', depth: 2 },
    { name: "the deepest branch counts, not the sum", json: '{"a":1,"b":{"c":{"d":[]}},"e":[[]]}', depth: 4 },
    { name: "brackets inside strings do not count", json: '{"a":"[[[{{{"}', depth: 1 },
    { name: "an escaped quote does not end a string", json: '{"a":"\\"[[[["}', depth: 1 },
    { name: "an escaped backslash does", json: '{"a":"\\\\","b":[[1]]}', depth: 3 },
    { name: "non-ASCII text is read as it is", json: '{"é日本🙂":["[x"]}', depth: 2 },
  ];
  for (const { name, json, depth } of cases) {
    it(`${name}: ${depth} deep`, () => {
      for (const form of [json, Buffer.from(json, "utf8")]) {
        assert.equal(jsonNestedDeeperThan(form, depth), false);
        if (depth > 0) assert.equal(jsonNestedDeeperThan(form, depth - 1), true);
      }
    });
  }

  it("reads arrays nested 400,000 deep (800 KB), which JSON.stringify cannot write, in a few milliseconds", () => {
    const json = `{"v":${"[".repeat(400_000)}${"]".repeat(400_000)}}`;
    const began = performance.now();
    assert.equal(jsonNestedDeeperThan(json, 33), true);
    assert.ok(performance.now() - began < 1_000);
    assert.throws(() => JSON.stringify(JSON.parse(json)), RangeError);
  });

  it("names the limit, counting below the request's own levels", () => {
    const body = '{"query":"{ a }","variables":{"a":[[[1]]]}}';
    assert.equal(variableDepthError(body, 4, 1), null, "variables 4 deep, in a body");
    const error = variableDepthError(body, 3, 1);
    assert.equal(error?.message, "a value in the request is nested more than 3 deep (limits.max_variable_depth)");
    assert.deepEqual(error?.extensions, { type: "LIMIT_EXCEEDED", code: "BAD_REQUEST", limit: "limits.max_variable_depth" });
    assert.equal(variableDepthError('{"a":[[[1]]]}', 4, 0), null, "a GET request's variables, 4 deep");
  });
});
