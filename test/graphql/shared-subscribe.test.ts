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
      fields: {
        said: { type: GraphQLString, subscribe: () => pubsub.subscribe("said"), resolve: (p: { text: string }) => p.text },
        // A field that waits forever (a join that never answers).
        slow: { type: GraphQLString, subscribe: () => pubsub.subscribe("said"), resolve: () => new Promise(() => undefined) },
      },
    }),
  });
  const document = parse("subscription { said }");
  const open = async () => (await sharedSubscribe({ schema, document })) as AsyncIterableIterator<ExecutionResult>;
  return { pubsub, open, schema, document };
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

  it("with a sink, pushes each event's shared result to it as published, and the stream yields nothing until it ends", async () => {
    const { pubsub, schema, document } = world();
    const sent: Array<[string, ExecutionResult]> = [];
    const sink = (name: string) => ({ next: (result: ExecutionResult) => (sent.push([name, result]), null) });
    const [a, b] = [
      (await sharedSubscribe({ schema, document }, sink("a"))) as AsyncIterableIterator<ExecutionResult>,
      (await sharedSubscribe({ schema, document }, sink("b"))) as AsyncIterableIterator<ExecutionResult>,
    ];
    const ended = a.next();
    pubsub.publish("said", { text: "hi" });
    assert.deepEqual(
      sent.map(([name, r]) => `${name} ${JSON.stringify(r)}`),
      ['a {"data":{"said":"hi"}}', 'b {"data":{"said":"hi"}}'],
    );
    assert.equal(sent[0]?.[1], sent[1]?.[1], "one execution for both");
    await a.return?.();
    assert.deepEqual(await ended, { value: undefined, done: true });
    assert.equal(failSubscription(b, new Error("fell behind")), true);
    await assert.rejects(b.next(), /fell behind/);
    assert.equal(pubsub.count("said"), 0);
  });

  it("with a sink, ends a subscription whose results wait past maxWaiting with the lag error naming its topic", async () => {
    const { pubsub, schema } = world();
    const document = parse("subscription { slow }");
    const pending = (await sharedSubscribe({ schema, document }, { next: () => null }, 2)) as AsyncIterableIterator<ExecutionResult>;
    const ended = pending.next();
    for (let i = 0; i < 4; i++) pubsub.publish("said", { text: String(i) });
    await assert.rejects(ended, /^SubscriberTooSlowError: subscriber fell 2 events behind on slow and was closed$/);
  });
});
