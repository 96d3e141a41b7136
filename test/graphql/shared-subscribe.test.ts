import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { GraphQLObjectType, GraphQLSchema, GraphQLString, parse, type ExecutionResult } from "graphql";
import { PubSub } from "../../src/graphql/pubsub.js";
import { failSubscription, sharedSubscribe } from "../../src/graphql/shared-subscribe.js";

function world() {
  const pubsub = new PubSub<{ said: { text: string } }>();
  const schema = new GraphQLSchema({
    query: new GraphQLObjectType({ name: "Query", fields: { x: { type: GraphQLString } } }),
    subscription: new GraphQLObjectType({
      name: "Subscription",
      fields: { said: { type: GraphQLString, subscribe: () => pubsub.subscribe("said"), resolve: (p: { text: string }) => p.text } },
    }),
  });
  const document = parse("subscription { said }");
  const open = async () => (await sharedSubscribe({ schema, document })) as AsyncIterableIterator<ExecutionResult>;
  return { pubsub, open };
}

describe("sharedSubscribe", () => {
  it("hands subscribers of one document the same result object of each event", async () => {
    const { pubsub, open } = world();
    const [a, b] = [await open(), await open()];
    pubsub.publish("said", { text: "hi" });
    const [ra, rb] = [await a.next(), await b.next()];
    assert.equal(JSON.stringify(ra.value), JSON.stringify({ data: { said: "hi" } }));
    assert.equal(ra.value, rb.value);
  });

  it("failSubscription raises the error where the next event would come, waiting or not, and lets the source go", async () => {
    const { pubsub, open } = world();
    const waiting = await open();
    const idle = await open();
    const pending = waiting.next();
    assert.equal(failSubscription(waiting, new Error("fell behind")), true);
    assert.equal(failSubscription(idle, new Error("fell behind too")), true);
    await assert.rejects(pending, /fell behind/);
    await assert.rejects(idle.next(), /fell behind too/);
    assert.equal(pubsub.count("said"), 0);
    assert.equal(failSubscription({}, new Error("x")), false);
  });
});
