import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { buildSchema, isEnumType, isInputObjectType, isObjectType, parse, validate, type GraphQLNamedType } from "graphql";
import { SABAKAN_DOCUMENTS } from "../../src/adapters/sabakan-documents.js";

const ours = ["../../schema/sabakan.graphql", "../../schema/sabakan-root.graphql"].map((p) => readFileSync(new URL(p, import.meta.url), "utf8")).join("\n");
// sabakan's own schema, byte for byte (provenance in test/fixtures/sabakan/SOURCE.md).
const REAL = readFileSync(new URL("../fixtures/sabakan/schema.graphql", import.meta.url), "utf8");

describe("the documents kintsugi sends to sabakan", () => {
  const schemas: Array<[string, string]> = [
    ["kintsugi's own description of sabakan (schema/sabakan*.graphql)", ours],
    ["sabakan's real schema (test/fixtures/sabakan/schema.graphql)", REAL],
  ];
  for (const [name, sdl] of schemas) {
    for (const [doc, text] of Object.entries(SABAKAN_DOCUMENTS)) {
      it(`${doc} is valid against ${name}`, () => {
        const errors = validate(buildSchema(sdl), parse(text));
        assert.deepEqual(
          errors.map((e) => e.message),
          [],
        );
      });
    }
  }

  it("would catch drift: a field sabakan does not have fails validation", () => {
    const drifted = SABAKAN_DOCUMENTS.SEARCH_MACHINES.replace("bmc { bmcType ipv4 }", "bmc { bmcType ipv4 bmcVendor }");
    assert.match(validate(buildSchema(ours), parse(drifted))[0]?.message ?? "", /Cannot query field "bmcVendor" on type "BMC"/);
  });

  it("kintsugi's description of sabakan's types matches the real one type for type", () => {
    const real = buildSchema(REAL);
    const mine = buildSchema(ours);
    for (const [name, type] of Object.entries(mine.getTypeMap())) {
      if (name.startsWith("__")) continue;
      const theirs = real.getType(name);
      assert.ok(theirs, `sabakan has no type ${name}`);
      assert.deepEqual(shape(type), shape(theirs), name);
    }
  });
});

/** A type's fields with their types (object and input types), or its values (enums). */
function shape(type: GraphQLNamedType): string[] {
  if (isEnumType(type)) return type.getValues().map((v) => v.name);
  if (isObjectType(type) || isInputObjectType(type)) return Object.values(type.getFields()).map((f) => `${f.name}: ${String(f.type)}`);
  return [type.name];
}
