// The shapes of issue 37 that bench/abuse sends a kintsugi serve: documents that passed every limit and held the event
// loop in validation, variables too deep to serialise, the first request after a start, the status page's panels,
// statistics next to a working queue, introspection, an operator's add storms and subscribers that stop reading.
import WebSocket from "ws";
import { getIntrospectionQuery } from "graphql";
import { READS } from "../scripts/status-page/queries.js";
import { fleetAddress } from "./abuse-seed.js";
import { atOnce, postAnswer, postRaw, type Shape, type ShapeContext } from "./abuse-shapes.js";

const DAY = 86_400_000;

/** CKE's selection of a machine (cybozu-go/cke sabakan/query.go), which the first request after a start asks 30 times. */
const CKE_MACHINE = "spec { serial labels { name value } rack indexInRack role ipv4 registerDate retireDate bmc { bmcType } } status { state duration }";
const aliased = (count: number, field: string) => Array.from({ length: count }, (_, i) => `a${i}: ${field}`).join(" ");

/** `{ constraints { __typename } }` written `n` times, no alias; `variant` changes the text (a comment), not the document. */
const repeated = (n: number, variant: number) => `{ ${"constraints { __typename } ".repeat(n)} } #${variant}`;

let variants = 0;

function repeatedFields(): Shape {
  return {
    name: "{ constraints { __typename } } x1,240 without aliases (each text new)",
    run: (ctx, clients) => atOnce(clients, () => postAnswer(ctx.url, ctx.viewer, repeated(1_240, variants++))),
  };
}

/** The same document as subscriptions over one graphql-ws connection per client, each subscribe a new text. */
function repeatedFieldsOverWebSocket(): Shape {
  return {
    name: "the same x1,240, subscribed over WebSocket",
    run: (ctx, clients) =>
      atOnce(clients, async () => {
        const ws = await connect(ctx.url, ctx.viewer);
        if (!ws) return "connection refused";
        try {
          return await subscribeAnswer(ws, `subscription ${repeated(1_240, variants++)}`);
        } finally {
          ws.terminate();
        }
      }),
  };
}

function deepVariables(): Shape {
  // Arrays 400,000 deep: 800 KB, within max_body_bytes; JSON.stringify cannot write them, so the text is written here.
  const body = `{"query":"query ($v: [String]) { repairQueueEnabled }","variables":{"v":${"[".repeat(400_000)}${"]".repeat(400_000)}}}`;
  return { name: "variables nested 400,000 deep", run: (ctx, clients) => atOnce(clients, () => postRaw(ctx.url, ctx.viewer, body)) };
}

function firstRequest(): Shape {
  return {
    name: "the first request after a start: 30 aliased searchMachines of CKE's selection",
    once: true,
    cold: true,
    run: (ctx) => postAnswer(ctx.url, ctx.viewer, `{ ${aliased(30, `searchMachines { ${CKE_MACHINE} }`)} }`),
  };
}

function introspection(): Shape {
  const query = getIntrospectionQuery({
    descriptions: true,
    inputValueDeprecation: true,
    schemaDescription: true,
    specifiedByUrl: true,
    directiveIsRepeatable: true,
  });
  return { name: "GraphiQL's full introspection", run: (ctx, clients) => atOnce(clients, () => postAnswer(ctx.url, ctx.viewer, query)) };
}

function panel(name: string, query: string, variables?: (ctx: ShapeContext) => Record<string, unknown>, queue = 0): Shape {
  return { name, queue, run: (ctx, clients) => atOnce(clients, () => postAnswer(ctx.url, ctx.viewer, query, variables?.(ctx))) };
}

const addDocument = `mutation ($a: IPAddress!) { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: $a) { index } }`;

/** Adds entries for machines `from` to `from + count` (counting down from the fleet's last), all at once; their time. */
async function addAtOnce(ctx: ShapeContext, from: number, count: number): Promise<{ seconds: number; failed: number }> {
  const began = performance.now();
  const answers = await Promise.all(
    Array.from({ length: count }, (_, i) => postAnswer(ctx.url, ctx.admin, addDocument, { a: fleetAddress(ctx.fleet - 1 - from - i) })),
  );
  return { seconds: (performance.now() - began) / 1000, failed: answers.filter((a) => !a.startsWith("answered")).length };
}

function addStorm(): Shape {
  return {
    name: "add storm: 300 adds at once, then 300 more",
    once: true,
    async run(ctx, _clients, note) {
      const first = await addAtOnce(ctx, 0, 300);
      note(`the first 300 in ${first.seconds.toFixed(1)} s`);
      const second = await addAtOnce(ctx, 300, 300);
      const failed = first.failed + second.failed;
      return `the first 300 in ${first.seconds.toFixed(1)} s, the next 300 in ${second.seconds.toFixed(1)} s${failed ? `; ${failed} failed` : ""}`;
    },
  };
}

function addsOneByOne(queued: number): Shape {
  return {
    name: `50 adds one by one next to ${queued.toLocaleString("en")} queued`,
    once: true,
    queue: queued,
    async run(ctx) {
      const began = performance.now();
      for (let i = 0; i < 50; i++) await postAnswer(ctx.url, ctx.admin, addDocument, { a: fleetAddress(ctx.fleet - 1 - queued - i) });
      return `${((performance.now() - began) / 50).toFixed(0)} ms an add`;
    },
  };
}

/** What each slow subscriber asks of an event: about 1 KB, 100 KB an event on each connection of 100. */
const SLOW_SUBSCRIPTION = `subscription { repairEntryEvents { kind entry { index address nodename machineType operation status step stepStatus stepCount deleted
  createdAt lastTransitionTime waitingFor { kind message until } history { kind reason detail status step stepStatus } } } }`;

/**
 * 100 connections of 100 subscriptions whose clients stop reading, then events (four adds in flight at a time) for 30 s:
 * how many subscriptions the server still holds (max_buffered_bytes is 4 MiB a connection: about 40 events).
 */
function slowSubscribers(): Shape {
  return {
    name: "10,000 subscriptions (100 connections x 100) whose clients stop reading, events for 30 s",
    once: true,
    async run(ctx, _clients, note) {
      const sockets: WebSocket[] = [];
      const closes = new Map<string, number>();
      try {
        for (let c = 0; c < 100; c++) {
          const ws = await connect(ctx.url, ctx.viewer);
          if (!ws) return `connection ${c} refused`;
          ws.on("close", (code) => closes.set(String(code), (closes.get(String(code)) ?? 0) + 1));
          sockets.push(ws);
          for (let i = 0; i < 100; i++) {
            ws.send(
              JSON.stringify({
                type: "subscribe",
                id: String(i),
                payload: { query: SLOW_SUBSCRIPTION },
              }),
            );
          }
        }
        const registering = performance.now() + 30_000;
        for (let open = 0; open < 10_000 && performance.now() < registering; open = (await heldSubscriptions(ctx)) ?? 0) {
          note(`${open} subscriptions registered`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        for (const ws of sockets) ws.pause();
        const until = performance.now() + 30_000;
        let events = 0;
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            while (performance.now() < until) {
              await ctx.fire();
              note(`${++events} events`);
            }
          }),
        );
        const open = await heldSubscriptions(ctx);
        return `${events} events; ${open ?? "?"} subscriptions still held by the server${closes.size ? `; closed: ${[...closes].map(([code, n]) => `${n}x ${code}`).join(", ")}` : ""}`;
      } finally {
        for (const ws of sockets) ws.terminate();
      }
    },
  };
}

/** The repairEntryEvents subscriptions the server holds, from its /metrics (a viewer may read them); null without an answer. */
async function heldSubscriptions(ctx: ShapeContext): Promise<number | null> {
  try {
    const text = await (await fetch(`${ctx.url}/metrics`, { headers: { authorization: `Bearer ${ctx.viewer}` } })).text();
    const line = text.split("\n").find((l) => l.startsWith('kintsugi_subscriptions{topic="repairEntryEvents"} '));
    return line === undefined ? null : Number(line.slice(line.lastIndexOf(" ") + 1));
  } catch {
    return null;
  }
}

/** A graphql-ws connection, acknowledged, or null when refused. */
function connect(url: string, token: string): Promise<WebSocket | null> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  return new Promise((resolve) => {
    ws.on("error", () => resolve(null));
    ws.on("close", () => resolve(null));
    ws.on("open", () => ws.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${token}` } })));
    ws.once("message", (data) => resolve((JSON.parse(String(data)) as { type: string }).type === "connection_ack" ? ws : null));
  });
}

/** Subscribes once and tells the first answer: refused with the limit it names, an error, or an event. */
function subscribeAnswer(ws: WebSocket, query: string): Promise<string> {
  return new Promise((resolve) => {
    ws.once("close", (code) => resolve(`socket closed ${code}`));
    ws.once("message", (data) => {
      const message = JSON.parse(String(data)) as { type: string; payload?: Array<{ message?: string; extensions?: { limit?: string } }> };
      const error = message.payload?.[0];
      if (message.type !== "error") resolve(message.type);
      else resolve(error?.extensions?.limit ? `refused: ${error.extensions.limit}` : `error: ${error?.message?.slice(0, 90)}`);
    });
    ws.send(JSON.stringify({ type: "subscribe", id: "1", payload: { query } }));
  });
}

/** Issue 37's shapes, in the order the bench runs them. */
export const SHAPES_37: readonly Shape[] = [
  repeatedFields(),
  repeatedFieldsOverWebSocket(),
  deepVariables(),
  firstRequest(),
  introspection(),
  panel("the status page's machines panel", READS.machines),
  panel("the status page's outcomes panel (autoRepairOutcomes(last: 5) with skipped)", READS.outcomes),
  panel(
    "finishedRepairs over a week (limit 5,000) next to a working queue of 300",
    "query ($since: DateTime!) { finishedRepairs(since: $since, limit: 5000) { index address operation status finishedAt } }",
    (ctx) => ({ since: new Date(ctx.now - 7 * DAY).toISOString() }),
    300,
  ),
  panel(
    "repairStats over 89 days next to a queue of 300",
    "query ($since: DateTime!) { repairStats(since: $since) { machineType operation entries succeeded failed successRate timeToRepair { p50Seconds p90Seconds maxSeconds } } }",
    (ctx) => ({ since: new Date(ctx.now - 89 * DAY).toISOString() }),
    300,
  ),
  addStorm(),
  addsOneByOne(10),
  addsOneByOne(1_000),
  slowSubscribers(),
];
