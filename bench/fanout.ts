// bench/fanout: 1,000 graphql-ws subscribers of repairEntryEvents, time from the event's publication (its commit)
// until every one has it, next to a raw `ws` broadcast of the same payload to 1,000 plain WebSocket clients, in the
// same run; the whole mutation round trip is printed too.
// Clients live in this process too (so both figures carry the same client-side cost). Prints figures only.
// Run: npm run bench:fanout
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createClient, type Client } from "graphql-ws";
import WebSocket, { WebSocketServer } from "ws";
import { DEFAULT_LIMITS } from "../src/config/limits.js";
import { startTestKintsugi } from "../test/support/kintsugi-server.js";

const SUBSCRIBERS = 1000;
const ROUNDS = 5;
const QUERY = `subscription { repairEntryEvents { kind entry { index address status step stepStatus } record { reason } } }`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

async function kintsugiFanout(): Promise<{ times: number[]; endToEnd: number[]; payload: string }> {
  let committedAt = 0;
  // Every subscriber connects from 127.0.0.1.
  const k = await startTestKintsugi(
    { limits: { ...DEFAULT_LIMITS, maxConnectionsPerAddress: SUBSCRIBERS } },
    { subscriptionBufferSize: 10_000, onCommitted: () => void (committedAt = performance.now()) },
  );
  const clients: Client[] = [];
  let received = 0;
  let payload = "";
  let acked = 0;
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const client = createClient({
      url: `${k.url.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      on: { connected: () => void acked++ },
    });
    client.subscribe(
      { query: QUERY },
      {
        next: (v) => {
          received++;
          payload = JSON.stringify(v);
        },
        error: () => {},
        complete: () => {},
      },
    );
    clients.push(client);
  }
  while (acked < SUBSCRIBERS) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 500)); // let every subscribe message land
  const times: number[] = [];
  const endToEnd: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    received = 0;
    const start = performance.now();
    await k.gql(`mutation($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
      a: `10.0.0.${round + 1}`,
    });
    while (received < SUBSCRIBERS) await new Promise((r) => setImmediate(r));
    const done = performance.now();
    times.push(done - committedAt);
    endToEnd.push(done - start);
  }
  console.log(`    resident memory with ${SUBSCRIBERS} subscribers (server and clients in one process): ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB`);
  await Promise.all(clients.map((c) => c.dispose()));
  await k.dispose();
  return { times, endToEnd, payload };
}

async function rawFanout(payload: string): Promise<number[]> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const clients: WebSocket[] = [];
  let received = 0;
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    ws.on("message", () => void received++);
    clients.push(ws);
  }
  await Promise.all(clients.map((ws) => new Promise((r) => (ws.readyState === WebSocket.OPEN ? r(null) : ws.once("open", r)))));
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    received = 0;
    const start = performance.now();
    for (const socket of wss.clients) socket.send(payload);
    while (received < SUBSCRIBERS) await new Promise((r) => setImmediate(r));
    times.push(performance.now() - start);
  }
  for (const ws of clients) ws.terminate();
  wss.close();
  server.close();
  return times;
}

const k = await kintsugiFanout();
const raw = await rawFanout(k.payload);
const [a, b] = [median(k.times), median(raw)];
console.log(`${SUBSCRIBERS} subscribers, ${k.payload.length}-byte event, median of ${ROUNDS}:`);
console.log(`    kintsugi, from the commit (the event's publication) to the last subscriber: ${a.toFixed(1)} ms`);
console.log(`    (the whole mutation round trip, HTTP + fsync'd commit included: ${median(k.endToEnd).toFixed(1)} ms)`);
console.log(`    raw ws broadcast of the same payload to ${SUBSCRIBERS} clients: ${b.toFixed(1)} ms`);
console.log(`    ratio ${(a / b).toFixed(2)}x (goal <= 3x)`);
process.exit(0);
