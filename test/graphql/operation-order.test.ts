import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildSchema, parse, subscribe, type ExecutionArgs } from "graphql";
import { GRAPHQL_TRANSPORT_WS_PROTOCOL, makeServer, type ExecutionResult } from "graphql-ws";
import { OperationOrder } from "../../src/graphql/operation-order.js";

const SDL = "type Query { ready: Boolean! } type Subscription { ticks: Int! }";
const schema = buildSchema(SDL);

/**
 * A schema whose `ticks` subscription listens only once `listenAfter` settles (or never, failing): a subscription that
 * takes turns to start, as any whose source is made asynchronously.
 */
function slowTopic(listenAfter: Promise<void>, fails: boolean) {
  const sinks: Array<(value: number) => void> = [];
  const topicSchema = buildSchema(SDL);
  const ticks = topicSchema.getSubscriptionType()!.getFields()["ticks"]!;
  ticks.resolve = (payload: unknown) => payload;
  ticks.subscribe = async () => {
    await listenAfter;
    if (fails) throw new Error("this topic cannot be listened to");
    const queue: number[] = [];
    let wake: (() => void) | null = null;
    sinks.push((value) => (queue.push(value), wake?.()));
    return (async function* () {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    })();
  };
  return { schema: topicSchema, publish: (value: number) => sinks.forEach((sink) => sink(value)) };
}

/** graphql-ws's own server on a socket of this test's, with kintsugi's order (or none), wired as http-server does. */
function connection(options: { readonly ordered: boolean; readonly fails: boolean; readonly listenAfter: Promise<void> }) {
  const topic = slowTopic(options.listenAfter, options.fails);
  const order = new OperationOrder();
  const sent: Array<{ id?: string; type: string; payload?: unknown }> = [];
  let onMessage: (data: string) => Promise<void> = async () => undefined;
  const server = makeServer({
    schema: topic.schema,
    roots: { query: { ready: true } },
    onSubscribe: (ctx, _id, payload) => {
      const args: ExecutionArgs = { schema: topic.schema, document: parse(payload.query), variableValues: payload.variables };
      return options.ordered ? order.admit(ctx.extra as object, args) : args;
    },
    subscribe: (args) => (options.ordered ? order.listening(args, Promise.resolve(subscribe(args))) : subscribe(args)),
  });
  const socket = {
    protocol: GRAPHQL_TRANSPORT_WS_PROTOCOL,
    send: async (data: string) => void sent.push(JSON.parse(data)),
    close: () => undefined,
    onMessage: (cb: (data: string) => Promise<void>) => void (onMessage = cb),
  };
  server.opened(socket, {});
  const send = (message: object) => onMessage(JSON.stringify(message));
  return { topic, sent, send };
}

describe("OperationOrder: a connection's operations start in the order they were sent", () => {
  const cases = [
    { name: "a query after a subscription still starting answers once it listens", ordered: true, fails: false, delivered: true },
    { name: "without the order, the query answers first and the event after it is lost", ordered: false, fails: false, delivered: false },
    { name: "a subscription that cannot start lets what follows start", ordered: true, fails: true, delivered: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      let listen!: () => void;
      const listenAfter = new Promise<void>((resolve) => (listen = resolve));
      const { topic, sent, send } = connection({ ordered: c.ordered, fails: c.fails, listenAfter });
      await send({ type: "connection_init" });
      const subscribed = send({ id: "s", type: "subscribe", payload: { query: "subscription { ticks }" } });
      const asked = send({ id: "q", type: "subscribe", payload: { query: "{ ready }" } });
      // The subscription listens a few turns later, as one whose stream takes time to make.
      setImmediate(listen);
      await asked;
      assert.ok(
        sent.some((m) => m.id === "q" && m.type === "complete"),
        "the query answered",
      );
      // What a client does once its query answered: read a snapshot; from then on every event must reach it.
      topic.publish(1);
      await new Promise<void>((resolve) => setImmediate(resolve));
      const results = sent.filter((m) => m.id === "s" && m.type === "next").map((m) => m.payload as ExecutionResult);
      const ticks = results.filter((r) => r.data).map((r) => r.data);
      assert.deepEqual(ticks, c.delivered ? [{ ticks: 1 }] : []);
      if (c.fails) assert.match(JSON.stringify(results), /this topic cannot be listened to/, "the failed subscription said why");
      void subscribed;
    });
  }

  it("starts an operation at once when nothing before it is starting, and keeps connections apart", async () => {
    const order = new OperationOrder();
    const [a, b] = [{}, {}];
    const args = (query: string): ExecutionArgs => ({ schema, document: parse(query) });
    const query = args("{ ready }");
    assert.equal(order.admit(a, query), query, "a query first on its connection starts at once");
    const first = args("subscription { ticks }");
    assert.equal(order.admit(a, first), first, "so does the first subscription");
    const later = args("{ ready }");
    const waiting = order.admit(a, later);
    assert.ok(waiting instanceof Promise, "a query after a subscription still starting waits");
    const elsewhere = args("{ ready }");
    assert.equal(order.admit(b, elsewhere), elsewhere, "another connection's query does not wait for it");
    await order.listening(first, Promise.resolve({ data: null }));
    assert.equal(await waiting, later);
    await new Promise<void>((resolve) => setImmediate(resolve));
    const after = args("{ ready }");
    assert.equal(order.admit(a, after), after, "once everything started, the connection owes nothing");
  });
});
