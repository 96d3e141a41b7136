import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import WebSocket from "ws";
import { createClient } from "graphql-ws";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { acknowledged, closed, openSocket } from "../support/raw-websocket.js";
import { assertQuickHealth } from "../support/quick-health.js";
import { until } from "../support/until.js";
import { subscriptionCount } from "../support/ws-subscriber.js";

// Abusive operations (deep, wide, aliased, costly, many subscriptions), scaled down against small limits.
const LIMITS = {
  ...DEFAULT_LIMITS,
  maxDepth: 6,
  maxAliases: 5,
  maxDirectives: 5,
  maxTokens: 300,
  maxSelections: 2_000,
  maxVariableDepth: 8,
  maxCost: 20_000,
  maxBodyBytes: 64 * 1024,
  maxConnections: 3,
  maxSubscriptionsPerConnection: 2,
};

const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: repairQueueEnabled`).join(" ")} }`;
// Each fragment holds two aliased copies of the next: 2^5 aliases in a document of a few hundred bytes.
const fragmentExplosion = `{ ...F0 } ${Array.from({ length: 5 }, (_, i) => `fragment F${i} on Query { x: repairQueueEnabled ${i < 4 ? `...F${i + 1} y${i}: searchRepairEntries { index } ...F${i + 1}` : ""} }`).join(" ")}`;

const join = (alias: string) => `${alias}: entry { machine { repairEntries { machine { __typename } } } }`;

/** `subscription` is the same document over WebSocket (a subscription where the query's fields are not valid there). */
const CASES: Array<{ name: string; query: string; subscription?: string; limit: string; message: RegExp }> = [
  {
    name: "a deep query",
    query: `{ searchRepairEntries { machine { repairEntries { machine { repairEntries { machine { spec { serial } } } } } } } }`,
    limit: "max_depth",
    message: /has 8 fields deep, more than the limit of 6 \(limits\.max_depth\)/,
  },
  { name: "an alias flood", query: aliases(6), limit: "max_aliases", message: /has 6 aliases, more than the limit of 5 \(limits\.max_aliases\)/ },
  { name: "a fragment-times-alias explosion", query: fragmentExplosion, limit: "max_aliases", message: /has \d+ aliases, more than the limit of 5/ },
  {
    name: "a directive flood",
    query: `{ repairQueueEnabled ${"@include(if: true) ".repeat(6)} }`,
    limit: "max_directives",
    message: /has 6 directives, more than the limit of 5 \(limits\.max_directives\)/,
  },
  {
    // 120 selections in 242 tokens, and 3,540 pairs of fields named alike for validation to compare.
    name: "one field repeated without aliases",
    query: `{ ${"constraints { __typename } ".repeat(60)} }`,
    limit: "max_selections",
    message:
      /has more than 2000 selections, counting fragments expanded and fields of one response name by the comparisons between them \(limits\.max_selections\)/,
  },
  {
    name: "a token flood",
    // Distinct names: the same one written 3,000 times would pass max_selections first.
    query: `{ ${Array.from({ length: 3_000 }, (_, i) => `f${i}`).join(" ")} }`,
    limit: "max_tokens",
    message: /more than 300 tokens \(limits\.max_tokens\); it was not parsed further/,
  },
  {
    name: "an over-budget join",
    query: `{ searchRepairEntries { machine { repairEntries { machine { spec { serial } } } } } }`,
    subscription: `subscription { repairEntryEvents { ${["a", "b", "c", "d", "e"].map(join).join(" ")} } }`,
    limit: "max_cost",
    message: /estimated cost is 90000, more than the limit of 20000 \(limits\.max_cost\)/,
  },
];

describe("operation and connection limits (each abuse case refused with its limit's error; /health keeps answering)", () => {
  let k: TestKintsugi;
  before(async () => {
    k = await startTestKintsugi({ limits: LIMITS });
  });
  after(() => k.dispose());

  const healthy = () => assertQuickHealth(k.url);

  for (const { name, query, subscription, limit, message } of CASES) {
    it(`refuses ${name} over HTTP POST and GET, naming limits.${limit}`, async () => {
      const [res] = await Promise.all([k.gql(query), healthy()]);
      assert.equal(res.status, 400);
      assert.equal(res.data, null);
      assert.match(res.errors?.[0]?.message ?? "", message);
      assert.deepEqual(res.errors?.[0]?.extensions, { type: "QUERY_TOO_COMPLEX", code: "GRAPHQL_VALIDATION_FAILED", limit: `limits.${limit}` });
      // A URL is bounded by node's header size (16 KiB) before any limit of kintsugi's.
      if (query.length < 8_000) {
        const viaGet = await fetch(`${k.url}/graphql?query=${encodeURIComponent(query)}`);
        assert.equal(((await viaGet.json()) as { errors: Array<{ extensions: { limit: string } }> }).errors[0]?.extensions.limit, `limits.${limit}`);
      }
      await healthy();
    });

    it(`refuses ${name} as a subscription over WebSocket, with the same error`, async () => {
      const errors = await subscribeErrors(k.url, subscription ?? query.replace(/^\{/, "subscription {"));
      assert.equal((errors[0] as { extensions?: { limit?: string } }).extensions?.limit, `limits.${limit}`, JSON.stringify(errors));
      await healthy();
    });
  }

  it("still serves GraphiQL's introspection query (default limits) and a join within budget", async () => {
    const { getIntrospectionQuery } = await import("graphql");
    const introspection = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS } });
    try {
      const res = await introspection.gql(
        getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, schemaDescription: true, specifiedByUrl: true, directiveIsRepeatable: true }),
      );
      assert.equal(res.errors, undefined, JSON.stringify(res.errors));
    } finally {
      await introspection.dispose();
    }
    const join = await k.gql(`{ searchRepairEntries { index machine { spec { serial } } } }`);
    assert.deepEqual([join.status, join.errors], [200, undefined], "a join within budget runs");
  });

  // Arrays nested a few thousand deep: JSON.parse reads them, JSON.stringify overflows the stack (so they are written here by hand).
  const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
  const tooDeep = { type: "LIMIT_EXCEEDED", code: "BAD_REQUEST", limit: "limits.max_variable_depth" };
  const post = async (body: string) => {
    const res = await fetch(`${k.url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body });
    return { status: res.status, errors: ((await res.json()) as { errors?: Array<{ message: string; extensions: unknown }> }).errors };
  };

  it("refuses variables nested past limits.max_variable_depth over HTTP POST and GET with 400, never a 500", async () => {
    const query = JSON.stringify("query ($v: Boolean!) { repairQueueEnabled @include(if: $v) }");
    const [posted] = await Promise.all([post(`{"query":${query},"variables":{"v":${deep(25_000)}}}`), healthy()]);
    assert.equal(posted.status, 400);
    assert.equal(posted.errors?.[0]?.message, "a value in the request is nested more than 8 deep (limits.max_variable_depth)");
    assert.deepEqual(posted.errors?.[0]?.extensions, tooDeep);
    const extensions = await post(`{"query":${query},"extensions":{"x":${deep(25_000)}}}`);
    assert.deepEqual([extensions.status, extensions.errors?.[0]?.extensions], [400, tooDeep]);
    const batch = await post(`[{"query":${query},"variables":{"v":${deep(25_000)}}}]`);
    assert.deepEqual([batch.status, batch.errors?.[0]?.extensions], [400, tooDeep]);
    const viaGet = await fetch(`${k.url}/graphql?query=${encodeURIComponent(JSON.parse(query))}&variables=${encodeURIComponent(`{"v":${deep(2_000)}}`)}`);
    assert.equal(viaGet.status, 400);
    assert.deepEqual(((await viaGet.json()) as { errors: Array<{ extensions: unknown }> }).errors[0]?.extensions, tooDeep);
    const within = await post(`{"query":${query},"variables":{"v":true}}`);
    assert.deepEqual([within.status, within.errors], [200, undefined], "variables within the bound are served");
    await healthy();
  });

  it("closes a WebSocket whose message nests variables past limits.max_variable_depth (4400, naming it) before parsing it", async () => {
    const socket = await openSocket(k.url);
    assert.equal(await acknowledged(socket), true);
    const gone = closed(socket);
    const query = JSON.stringify("subscription ($v: Boolean!) { repairEntryEvents { kind @include(if: $v) } }");
    socket.send(`{"type":"subscribe","id":"1","payload":{"query":${query},"variables":{"v":${deep(25_000)}}}}`);
    assert.deepEqual(await gone, [4400, "a value in the message is nested more than 8 deep (limits.max_variable_depth)"]);
    // Within the bound, the same subscription is served on a new connection.
    const again = await openSocket(k.url);
    try {
      assert.equal(await acknowledged(again), true);
      again.send(`{"type":"subscribe","id":"1","payload":{"query":${query},"variables":{"v":${deep(7)}}}}`);
      const answer = await new Promise<string>((resolve) => again.once("message", (data) => resolve(String(data))));
      // Not a Boolean, so graphql-js says so: the message was parsed and its variables coerced.
      assert.match(answer, /Boolean cannot represent a non boolean value/);
    } finally {
      again.close();
      await closed(again);
    }
    await healthy();
  });

  it("refuses a request body over limits.max_body_bytes with 413", async () => {
    const res = await k.gql(`{ repairQueueEnabled }`, { pad: "x".repeat(LIMITS.maxBodyBytes) });
    assert.equal(res.status, 413);
    assert.deepEqual(res.errors?.[0]?.extensions, { type: "LIMIT_EXCEEDED", code: "BAD_REQUEST", limit: "limits.max_body_bytes" });
    await healthy();
  });

  it("closes a WebSocket that sends a message over limits.max_body_bytes (1009), and goes on serving", async () => {
    const socket = await openSocket(k.url);
    socket.send(
      JSON.stringify({ type: "subscribe", id: "1", payload: { query: `subscription { repairEntryEvents { kind } } #${"x".repeat(LIMITS.maxBodyBytes)}` } }),
    );
    const [code] = await closed(socket);
    assert.equal(code, 1009);
    await healthy();
  });

  it("tells a client that opens more subscriptions than limits.max_subscriptions_per_connection why", async () => {
    const client = createClient({ url: `${k.url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
    try {
      const heard = [0, 1, 2].map(() => ({ events: 0, errors: null as unknown }));
      heard.forEach((h, i) => {
        client.subscribe(
          { query: `subscription S${i} { repairEntryEvents { kind } }` },
          { next: () => void h.events++, error: (err) => void (h.errors = err), complete: () => undefined },
        );
      });
      await until(
        "a subscription was refused",
        () => heard.filter((h) => h.errors !== null).length,
        (n) => n > 0,
      );
      await until(
        "the server holds the two others",
        () => subscriptionCount(k.url, "repairEntryEvents"),
        (n) => n === 2,
      );
      // The two that stay open hear the next event; the refused one never does.
      const added = await k.gql(`mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "10.0.0.1") { index } }`);
      assert.equal(added.errors, undefined, JSON.stringify(added.errors));
      await until(
        "the open subscriptions heard the event",
        () => heard.filter((h) => h.events > 0).length,
        (n) => n === 2,
      );
      assert.deepEqual(
        heard.map((h) => (h.errors === null) === h.events > 0),
        [true, true, true],
        JSON.stringify(heard),
      );
      const refused = heard.map((h) => h.errors).filter((e) => Array.isArray(e)) as Array<
        Array<{ message: string; extensions: { type: string; limit: string } }>
      >;
      assert.equal(refused.length, 1, JSON.stringify(heard));
      assert.match(refused[0]![0]!.message, /too many subscriptions on this connection: 2 are open/);
      assert.deepEqual(refused[0]![0]!.extensions, { type: "LIMIT_EXCEEDED", code: "BAD_REQUEST", limit: "limits.max_subscriptions_per_connection" });
    } finally {
      await client.dispose();
    }
    await healthy();
  });

  it("refuses a WebSocket connection past limits.max_connections with a close reason naming it", async () => {
    const open = await Promise.all([openSocket(k.url), openSocket(k.url), openSocket(k.url)]);
    try {
      const extra = await openSocket(k.url);
      const [code, reason] = await closed(extra);
      assert.equal(code, 1013);
      assert.equal(reason, `too many WebSocket connections: the limit is 3 (limits.max_connections)`);
      await healthy();
    } finally {
      for (const socket of open) socket.close();
      await Promise.all(open.map((s) => closed(s)));
    }
    const again = await openSocket(k.url);
    assert.equal(await acknowledged(again), true, "a slot freed is a slot to use");
    again.close();
  });
});

/** Subscribes once over graphql-ws and resolves with the errors the server answered with. */
function subscribeErrors(url: string, query: string): Promise<readonly unknown[]> {
  const client = createClient({ url: `${url.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  return new Promise<readonly unknown[]>((resolve, reject) => {
    // An accepted subscription hears nothing on an idle server: give up on the refusal after a generous deadline.
    setTimeout(() => reject(new Error("the subscription was accepted, not refused")), 10_000).unref();
    client.subscribe(
      { query },
      {
        next: () => reject(new Error("an event, not a refusal")),
        error: (err) => resolve(Array.isArray(err) ? err : [err]),
        complete: () => reject(new Error("completed, not refused")),
      },
    );
  }).finally(() => client.dispose());
}
