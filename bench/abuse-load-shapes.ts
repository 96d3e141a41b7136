// bench/abuse's load shapes from clients allowed to make it: an operator's add storms (300 adds at once, then 300 more;
// adds one by one next to a short and a long queue: every add wakes the runner, whose health checks are processes)
// and 10,000 subscribers whose clients stop reading while events keep coming (and the same adds with no subscriber).
import type WebSocket from "ws";
import { fleetAddress } from "./abuse-seed.js";
import { postAnswer, type Shape, type ShapeContext } from "./abuse-shapes.js";
import { acknowledgedSocket } from "./abuse-subscriptions.js";

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
export const SLOW_SUBSCRIPTION = `subscription { repairEntryEvents { kind entry { index address nodename machineType operation status step stepStatus stepCount deleted
  createdAt lastTransitionTime waitingFor { kind message until } history { kind reason detail status step stepStatus } } } }`;

/** Adds entries, four in flight at a time, for `ms` (each add is a few repairEntryEvents as the runner works it); the adds made. */
async function addFor(ctx: ShapeContext, ms: number, note: (progress: string) => void): Promise<number> {
  const until = performance.now() + ms;
  let adds = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (performance.now() < until) {
        await ctx.fire();
        note(`${++adds} adds`);
      }
    }),
  );
  return adds;
}

/** The connections the server says it closed for what their clients left unread, by limit, and when the last was (after `began`). */
function serverCloses(ctx: ShapeContext, began: number): string {
  const closes = ctx.logRecords().filter((r) => typeof r["limit"] === "string" && typeof r["time"] === "number" && (r["time"] as number) >= began);
  if (closes.length === 0) return "the server closed none";
  const byLimit = new Map<string, number>();
  for (const r of closes) byLimit.set(r["limit"] as string, (byLimit.get(r["limit"] as string) ?? 0) + 1);
  const last = ((closes.at(-1)?.["time"] as number) - began) / 1000;
  return `the server closed ${[...byLimit].map(([limit, n]) => `${n} by ${limit}`).join(", ")}, the last ${last.toFixed(1)} s into the events`;
}

/**
 * 100 connections of 100 subscriptions whose clients stop reading, then adds (four in flight at a time) for 30 s:
 * how many subscriptions the server still holds, and which bound closed their connections, when (from the server's
 * log; max_buffered_bytes is 4 MiB a connection: about 40 events of about 1 KB to each of its 100 subscriptions).
 */
function slowSubscribers(): Shape {
  return {
    name: "10,000 subscriptions (100 connections x 100) whose clients stop reading, events for 30 s",
    once: true,
    async run(ctx, _clients, note) {
      const sockets: WebSocket[] = [];
      try {
        for (let c = 0; c < 100; c++) {
          const ws = await acknowledgedSocket(ctx.url, ctx.viewer);
          if (!ws) return `connection ${c} refused`;
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
        const began = Date.now();
        const adds = await addFor(ctx, 30_000, (progress) => note(`${progress}; ${serverCloses(ctx, began)}`));
        const open = await heldSubscriptions(ctx);
        return `${adds} adds; ${open ?? "?"} subscriptions still held; ${serverCloses(ctx, began)}`;
      } finally {
        for (const ws of sockets) ws.terminate();
      }
    },
  };
}

/** The slow-subscriber shape's adds alone, with no subscriber: what they cost the server by themselves. */
function addsAlone(): Shape {
  return {
    name: "the same adds for 30 s with no subscriber (four in flight)",
    once: true,
    async run(ctx, _clients, note) {
      return `${await addFor(ctx, 30_000, note)} adds`;
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

/** The load shapes, in the order the bench runs them. */
export const LOAD_SHAPES: readonly Shape[] = [addStorm(), addsOneByOne(10), addsOneByOne(1_000), slowSubscribers(), addsAlone()];
