import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { makeExecutableSchema } from "../../src/graphql/apollo-server.js";
import { parse } from "graphql";
import { FIELD_ROLES } from "../../src/auth/field-roles.js";
import { assertRoleTableMatches, forbiddenFieldError, roleTableMismatches, rootFieldsOf } from "../../src/auth/operation-roles.js";
import { ROLES, roleIncludes, type Role } from "../../src/auth/roles.js";
import { buildSchema, schemaSDL } from "../../src/graphql/schema.js";

describe("the role table", () => {
  it("names a role for every root field of the schema, and no field the schema lacks", () => {
    assert.deepEqual(roleTableMismatches(buildSchema()), { missing: [], stale: [] });
  });

  it("a root field without a role stops the server from starting, naming the field", () => {
    const schema = makeExecutableSchema({ typeDefs: `${schemaSDL()}\nextend type Mutation { "new" eraseEverything: Boolean }` });
    assert.deepEqual(roleTableMismatches(schema), { missing: ["Mutation.eraseEverything"], stale: [] });
    assert.throws(() => assertRoleTableMatches(schema), /without a role: Mutation\.eraseEverything/);
  });

  it("a root field named like a member of every object (toString, constructor) has no role either: admins only, and the server refuses to start", () => {
    const schema = makeExecutableSchema({ typeDefs: `${schemaSDL()}\nextend type Mutation { "new" toString: Boolean "new" constructor: Boolean }` });
    assert.deepEqual(roleTableMismatches(schema), { missing: ["Mutation.toString", "Mutation.constructor"], stale: [] });
    const operator = { name: "ci-bot", role: "operator" as const };
    for (const field of ["toString", "constructor"]) {
      assert.equal(forbiddenFieldError(operator, parse(`mutation { ${field} }`))?.extensions["requiredRole"], "admin", field);
    }
  });

  it("gives viewers every query and subscription, and nothing that changes anything", () => {
    for (const [type, fields] of Object.entries(FIELD_ROLES)) {
      for (const [field, role] of Object.entries(fields)) {
        if (type === "Mutation") assert.notEqual(role, "viewer", `${type}.${field}`);
        else assert.equal(role, "viewer", `${type}.${field}`);
      }
    }
  });

  it("gives admins exactly the fields that shape the policy", () => {
    const admin = Object.entries(FIELD_ROLES.Mutation)
      .filter(([, role]) => role === "admin")
      .map(([field]) => field)
      .sort();
    assert.deepEqual(admin, [
      "adoptCluster",
      "importRepairEntries",
      "setAutoRepairVariables",
      "setClusterGenerationEnabled",
      "setClusterTemplate",
      "setClusterVariables",
      "setConstraint",
    ]);
  });
});

describe("roles are ordered: admin ⊃ operator ⊃ viewer", () => {
  const cases: Array<[Role, Role, boolean]> = [
    ["viewer", "viewer", true],
    ["viewer", "operator", false],
    ["viewer", "admin", false],
    ["operator", "viewer", true],
    ["operator", "operator", true],
    ["operator", "admin", false],
    ["admin", "viewer", true],
    ["admin", "operator", true],
    ["admin", "admin", true],
  ];
  for (const [role, needed, expected] of cases)
    it(`${role} ${expected ? "includes" : "lacks"} ${needed}`, () => assert.equal(roleIncludes(role, needed), expected));
  it("has three roles", () => assert.deepEqual([...ROLES], ["viewer", "operator", "admin"]));
});

describe("the root fields of an operation", () => {
  const cases: Array<{ name: string; document: string; operationName?: string; expected: { type: string; fields: string[] } | null }> = [
    {
      name: "plain fields",
      document: "{ repairQueueEnabled constraints { minimumWorkers } }",
      expected: { type: "Query", fields: ["repairQueueEnabled", "constraints"] },
    },
    {
      name: "aliases count by field",
      document: 'mutation { a: setConstraint(name: "x", value: 1) { minimumWorkers } }',
      expected: { type: "Mutation", fields: ["setConstraint"] },
    },
    {
      name: "through a fragment spread and an inline fragment",
      document:
        'mutation { ...M ... on Mutation { setClusterTemplate(template: "t") { name } } } fragment M on Mutation { addRepairEntry(operation: "o", machineType: "m", address: "10.0.0.1") { index } }',
      expected: { type: "Mutation", fields: ["addRepairEntry", "setClusterTemplate"] },
    },
    {
      name: "a fragment spread twice is walked once",
      document: "{ ...Q ...Q } fragment Q on Query { healthChecks { name } }",
      expected: { type: "Query", fields: ["healthChecks"] },
    },
    {
      name: "the named operation of several",
      document: "query A { repairQueueEnabled } mutation B { resetRepairBackoff { index } }",
      operationName: "B",
      expected: { type: "Mutation", fields: ["resetRepairBackoff"] },
    },
    { name: "several operations without a name", document: "query A { repairQueueEnabled } mutation B { resetRepairBackoff { index } }", expected: null },
    { name: "a subscription", document: "subscription { repairEntryEvents { kind } }", expected: { type: "Subscription", fields: ["repairEntryEvents"] } },
  ];
  for (const { name, document, operationName, expected } of cases) {
    it(name, () => assert.deepEqual(rootFieldsOf(parse(document), operationName), expected));
  }

  it("a field beyond the role anywhere in the operation refuses all of it, naming the role", () => {
    const document = parse(
      'mutation { setRepairQueueEnabled(enabled: true) ...F } fragment F on Mutation { setConstraint(name: "minimum-workers", value: 1) { minimumWorkers } }',
    );
    const error = forbiddenFieldError({ name: "ci-bot", role: "operator" }, document);
    assert.equal(error?.message, 'Mutation.setConstraint needs the admin role; token "ci-bot" has the operator role');
    assert.deepEqual(error?.extensions, { type: "FORBIDDEN", code: "FORBIDDEN", requiredRole: "admin" });
    assert.equal(forbiddenFieldError({ name: "root", role: "admin" }, document), null);
  });

  it("introspection is for viewers", () => {
    assert.equal(forbiddenFieldError({ name: "anonymous", role: "viewer" }, parse("{ __schema { queryType { name } } __typename }")), null);
  });
});
