// The cost of an event to 10,000 subscriptions (100 connections x 100, in this process) whose clients stopped reading:
// EVENTS adds (60) one after another against an in-process server; prints the wall time and CPU an event, the
// subscriptions still held, peak RSS (server and clients together), event-loop delay and garbage collection by kind
// (1 scavenge, 4 mark-sweep); the time runs until the last fan-out is done (a half second idle, counted). With HEAP=1, V8's sampling heap profiler prints where the allocations are made.
// DOC=history asks what bench:abuse's slow subscribers ask (the entry's history too: a result that waits on a store
// read); CONNS=0 runs the same adds with no paused subscriber, what an event costs without the fan-out.
// Figures only. Run: node --max-semi-space-size=8 --import tsx bench/slow-fanout.ts (the serve binary's flag).
import { PerformanceObserver, monitorEventLoopDelay } from "node:perf_hooks";
import { Session } from "node:inspector/promises";
import { DEFAULT_LIMITS } from "../src/config/limits.js";
import { startTestKintsugi } from "../test/support/kintsugi-server.js";
import { acknowledged, openSocket } from "../test/support/raw-websocket.js";
import { subscriptionCount } from "../test/support/ws-subscriber.js";
import { SLOW_SUBSCRIPTION } from "./abuse-load-shapes.js";
import type WebSocket from "ws";

const Q =
  process.env["DOC"] === "history"
    ? SLOW_SUBSCRIPTION
    : `subscription { repairEntryEvents { kind entry { index address nodename machineType operation status step stepStatus stepCount deleted lastTransitionTime } } }`;
const CONNS = Number(process.env["CONNS"] ?? 100);
const EVENTS = Number(process.env["EVENTS"] ?? 60);
const k = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS, maxConnectionsPerAddress: 200 } });
const sockets: WebSocket[] = [];
for (let c = 0; c < CONNS; c++) {
  const ws = await openSocket(k.url);
  await acknowledged(ws);
  for (let i = 0; i < 100; i++) ws.send(JSON.stringify({ type: "subscribe", id: String(i), payload: { query: Q } }));
  sockets.push(ws);
}
while ((await subscriptionCount(k.url, "repairEntryEvents")) !== CONNS * 100) await new Promise((r) => setTimeout(r, 100));
for (const ws of sockets) ws.pause();
// One more connection that reads, to show every event reached its subscribers.
const reader = await openSocket(k.url);
await acknowledged(reader);
let received = 0;
reader.on("message", () => received++);
reader.send(JSON.stringify({ type: "subscribe", id: "r", payload: { query: Q } }));
while ((await subscriptionCount(k.url, "repairEntryEvents")) !== CONNS * 100 + 1) await new Promise((r) => setTimeout(r, 100));
const gc = new Map<number, { n: number; ms: number }>();
const obs = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = (e as unknown as { detail: { kind: number } }).detail.kind;
    const g = gc.get(kind) ?? { n: 0, ms: 0 };
    g.n++;
    g.ms += e.duration;
    gc.set(kind, g);
  }
});
obs.observe({ entryTypes: ["gc"] });
const delay = monitorEventLoopDelay({ resolution: 10 });
delay.enable();
const rss0 = process.memoryUsage().rss;
const session = new Session();
if (process.env["HEAP"]) {
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  } as never);
}
const began = performance.now();
const cpu0 = process.cpuUsage();
let peak = 0;
for (let i = 0; i < EVENTS; i++) {
  await k.gql(`mutation ($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
    a: `10.1.${i >> 8}.${i & 255}`,
  });
  await new Promise((r) => setImmediate(r));
  peak = Math.max(peak, process.memoryUsage().rss);
}
// The fan-out of the last events may still run (paced over turns of the event loop): until a half second is idle and
// the reading subscriber has every event (on a loaded machine a starved process looks idle too), or a minute passed.
for (let last = process.cpuUsage(), giveUp = performance.now() + 60_000; performance.now() < giveUp;) {
  await new Promise((r) => setTimeout(r, 500));
  const spent = process.cpuUsage(last);
  last = process.cpuUsage();
  if (spent.user + spent.system < 50_000 && received >= EVENTS) break;
}
const ms = performance.now() - began;
if (process.env["HEAP"]) {
  const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as { profile: { head: Node } };
  interface Node {
    callFrame: { functionName: string; url: string; lineNumber: number };
    selfSize: number;
    children: Node[];
  }
  const self = new Map<string, number>();
  let total = 0;
  const walk = (n: Node, stack: string[]) => {
    const k = `${n.callFrame.functionName || "(anon)"} ${n.callFrame.url.split("/").slice(-2).join("/")}:${n.callFrame.lineNumber}`;
    self.set(k, (self.get(k) ?? 0) + n.selfSize);
    total += n.selfSize;
    for (const c of n.children) walk(c, stack);
  };
  walk(profile.head, []);
  console.log(`allocated ${(total / 2 ** 20).toFixed(0)} MB sampled`);
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 30))
    console.log(`${(v / 2 ** 20).toFixed(1).padStart(7)} MB ${((100 * v) / total).toFixed(1).padStart(5)}% ${k}`);
}
const cpu = process.cpuUsage(cpu0);
const held = ((await subscriptionCount(k.url, "repairEntryEvents")) ?? 1) - 1;
console.log(
  `${EVENTS} events in ${ms.toFixed(0)} ms (${(ms / EVENTS).toFixed(1)} ms each; the reading subscriber got ${received}), cpu ${((cpu.user + cpu.system) / 1000 / EVENTS).toFixed(1)} ms/event; held ${held}; rss ${(rss0 / 2 ** 20).toFixed(0)} -> peak ${(peak / 2 ** 20).toFixed(0)} MB; loop delay p99 ${(delay.percentile(99) / 1e6).toFixed(0)} max ${(delay.max / 1e6).toFixed(0)} ms; gc ${[...gc].map(([kind, g]) => `kind${kind} ${g.n}x ${g.ms.toFixed(0)}ms`).join(", ")}`,
);
for (const ws of [...sockets, reader]) ws.terminate();
await k.dispose();
process.exit(0);
