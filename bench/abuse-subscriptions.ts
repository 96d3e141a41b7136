// bench/abuse's subscription shape: many subscriptions, each with its own alias on the join RepairEntry.machine,
// over raw graphql-transport-ws sockets (kintsugi allows 100 a connection, so 800 take 8), then one repair event:
// how many subscriptions it reached, how soon, and how many sabakan requests it cost.
import WebSocket from "ws";
import { subscriptionCount } from "../test/support/ws-subscriber.js";

const PER_CONNECTION = 100;
const TOPIC = "repairEntryEvents";
const REGISTER_MS = 10_000;

/** The document of subscription `i`: its own alias on the join, so that no two documents are the same. */
export const aliasedJoin = (i: number) => `subscription { ${TOPIC} { entry { index m${i}: machine { spec { serial rack } status { state } } } } }`;

interface Tally {
  readonly delivered: Set<string>;
  readonly refused: Map<string, number>;
  closed: string | null;
}

function connect(url: string, token: string, tally: Tally): Promise<WebSocket | null> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  return new Promise((resolve) => {
    ws.on("error", () => resolve(null));
    ws.on("close", (code, reason) => {
      tally.closed = `socket closed ${code} ${String(reason)}`.trim();
      resolve(null);
    });
    ws.on("open", () => ws.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${token}` } })));
    ws.on("message", (data) => {
      const message = JSON.parse(String(data)) as { type: string; id?: string; payload?: Array<{ message?: string; extensions?: { limit?: string } }> };
      if (message.type === "connection_ack") resolve(ws);
      else if (message.type === "next" && message.id) tally.delivered.add(message.id);
      else if (message.type === "error") {
        const why = message.payload?.[0]?.extensions?.limit ?? message.payload?.[0]?.message?.slice(0, 80) ?? "error";
        tally.refused.set(why, (tally.refused.get(why) ?? 0) + 1);
      }
    });
  });
}

/** A graphql-ws connection, acknowledged, or null when refused. */
export function acknowledgedSocket(url: string, token: string): Promise<WebSocket | null> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  return new Promise((resolve) => {
    ws.on("error", () => resolve(null));
    ws.on("close", () => resolve(null));
    ws.on("open", () => ws.send(JSON.stringify({ type: "connection_init", payload: { authorization: `Bearer ${token}` } })));
    ws.once("message", (data) => resolve((JSON.parse(String(data)) as { type: string }).type === "connection_ack" ? ws : null));
  });
}

async function counted(url: string): Promise<number | null> {
  try {
    return await subscriptionCount(url, TOPIC);
  } catch {
    return null;
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `clients` clients each open `count` subscriptions (`documentOf`, {@link aliasedJoin} unless given); once the server counts them (or refused
 * them), `fire` makes one repair event; answers what came of it. `note` is told the progress, for a timeout's report.
 */
export async function subscriptionShape(
  opts: { url: string; viewer: string; sabakanRequests: () => number; fire: () => Promise<void> },
  count: number,
  clients: number,
  note: (progress: string) => void,
  documentOf: (i: number) => string = aliasedJoin,
): Promise<string> {
  const tally: Tally = { delivered: new Set(), refused: new Map(), closed: null };
  const sockets: WebSocket[] = [];
  const total = count * clients;
  try {
    for (let c = 0; c < clients; c++) {
      for (let first = 0; first < count; first += PER_CONNECTION) {
        const ws = await connect(opts.url, opts.viewer, tally);
        if (!ws) return `connection refused: ${tally.closed ?? "error"}`;
        sockets.push(ws);
        for (let i = first; i < Math.min(count, first + PER_CONNECTION); i++) {
          ws.send(JSON.stringify({ type: "subscribe", id: `${c}-${i}`, payload: { query: documentOf(i) } }));
        }
      }
    }
    const refusedCount = () => [...tally.refused.values()].reduce((a, b) => a + b, 0);
    note(`${total} subscriptions sent`);
    // The server says it holds them in its gauge; one that has not registered them all in REGISTER_MS gets the event anyway.
    let open: number | null = null;
    for (const began = performance.now(); performance.now() - began < REGISTER_MS; await pause(50)) {
      open = await counted(opts.url);
      note(`${total} subscriptions sent, ${open ?? "?"} registered, ${refusedCount()} refused`);
      if (open !== null && open + refusedCount() >= total) break;
    }
    const accepted = total - refusedCount();
    const registered = open !== null && open < accepted ? ` (${open} registered after ${REGISTER_MS / 1000} s)` : "";
    const refused = [...tally.refused].map(([why, n]) => `${n} refused (${why})`).join(", ") + registered;
    const before = opts.sabakanRequests();
    const fired = performance.now();
    note(`${accepted} subscribed${refused ? `, ${refused}` : ""}; event fired`);
    // The subscriptions the server never registered cannot get it: wait for the ones it did.
    const expected = open === null ? accepted : Math.min(accepted, open);
    await opts.fire();
    while (tally.delivered.size < expected && tally.closed === null) {
      await pause(20);
      note(
        `${accepted} subscribed${refused ? `, ${refused}` : ""}; the event reached ${tally.delivered.size} so far, ${opts.sabakanRequests() - before} sabakan requests`,
      );
    }
    const seconds = ((performance.now() - fired) / 1000).toFixed(1);
    return (
      `${accepted} subscribed${refused ? `, ${refused}` : ""}; the event reached ${tally.delivered.size} in ${seconds} s` +
      ` with ${opts.sabakanRequests() - before} sabakan requests${tally.closed ? `; ${tally.closed}` : ""}`
    );
  } finally {
    for (const ws of sockets) ws.terminate();
  }
}
