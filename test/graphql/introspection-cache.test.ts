import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApolloServer } from "../../src/graphql/apollo-server.js";
import { getIntrospectionQuery, GraphQLError } from "graphql";
import { introspectionCachePlugin } from "../../src/graphql/introspection-cache.js";
import { buildSchema } from "../../src/graphql/schema.js";

const FULL = getIntrospectionQuery({
  descriptions: true,
  inputValueDeprecation: true,
  schemaDescription: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
});

/** An Apollo Server with the cache, counting the operations it executes; `deny` refuses every operation as the role check would. */
async function server() {
  const seen = { executions: 0, deny: false };
  const apollo = new ApolloServer({
    schema: buildSchema(),
    plugins: [
      {
        async requestDidStart() {
          return {
            async didResolveOperation() {
              if (seen.deny) throw new GraphQLError("forbidden", { extensions: { code: "FORBIDDEN" } });
            },
            async executionDidStart() {
              seen.executions++;
            },
          };
        },
      },
      introspectionCachePlugin(),
    ],
  });
  await apollo.start();
  const ask = async (query: string, variables?: Record<string, unknown>) => {
    const res = await apollo.executeOperation({ query, ...(variables && { variables }) });
    return res.body.kind === "single" ? res.body.singleResult : null;
  };
  return { apollo, seen, ask };
}

describe("introspectionCachePlugin (a query that only introspects is answered from the last identical answer)", () => {
  it("executes a full introspection once and answers the same again", async () => {
    const { apollo, seen, ask } = await server();
    try {
      const first = await ask(FULL);
      assert.equal(first?.errors, undefined);
      assert.deepEqual(await ask(FULL), first);
      assert.equal(seen.executions, 1);
    } finally {
      await apollo.stop();
    }
  });

  it("executes every query that asks for more than introspection, and tells variables apart", async () => {
    const { apollo, seen, ask } = await server();
    try {
      await ask("{ __typename repairQueueEnabled }");
      await ask("{ __typename repairQueueEnabled }");
      assert.equal(seen.executions, 2, "not introspection only");
      const byName = "query ($n: String!) { __type(name: $n) { name } }";
      const entry = await ask(byName, { n: "RepairEntry" });
      const status = await ask(byName, { n: "RepairStatus" });
      assert.notDeepEqual(entry, status);
      assert.deepEqual(await ask(byName, { n: "RepairEntry" }), entry);
      assert.equal(seen.executions, 4);
    } finally {
      await apollo.stop();
    }
  });

  it("keeps no answer with errors, and answers nothing from the cache that the role check refuses", async () => {
    const { apollo, seen, ask } = await server();
    try {
      const missing = "query ($n: String!) { __type(name: $n) { name } }";
      assert.ok((await ask(missing))?.errors);
      assert.ok((await ask(missing))?.errors);
      assert.equal(seen.executions, 2, "an answer with errors is not kept");
      await ask(FULL);
      seen.deny = true;
      assert.equal((await ask(FULL))?.errors?.[0]?.message, "forbidden");
    } finally {
      await apollo.stop();
    }
  });
});
