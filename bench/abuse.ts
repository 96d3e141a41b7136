// bench/abuse: each abuse case of issue 14 run against the real `kintsugi serve` (the built binary: run
// `npm run build` first) with its default limits, while GET /health is polled: prints /health latency (p50, p99,
// max), how the server answered the abuse, and the server's resident memory (VmRSS) and peak (VmHWM) from /proc
// after each case. Figures only; asserts nothing. Run: npm run bench:abuse
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import WebSocket from "ws";
import { DEFAULT_LIMITS } from "../src/config/limits.js";
import { serveProcess } from "../test/support/serve-process.js";
import { tempDir } from "../test/support/temp-dir.js";

const ROUNDS = 20;

function memory(pid: number): string {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(/(\d+) kB/.exec(status.split("\n").find((l) => l.startsWith(key)) ?? "")?.[1] ?? 0);
  return `RSS ${(kb("VmRSS") / 1024).toFixed(1)} MB, peak ${(kb("VmHWM") / 1024).toFixed(1)} MB`;
}

/** Polls /health until `done` settles; returns the latencies in ms. */
async function healthWhile(base: string, done: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let finished = false;
  void done.finally(() => (finished = true));
  while (!finished || latencies.length < 5) {
    const start = performance.now();
    await fetch(`${base}/health`).then((r) => r.arrayBuffer());
    latencies.push(performance.now() - start);
  }
  return latencies;
}

const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!.toFixed(1);

async function post(url: string, query: string): Promise<string> {
  const res = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
  const body = (await res.json()) as { errors?: Array<{ extensions?: { limit?: string } }> };
  return `${res.status} ${body.errors?.[0]?.extensions?.limit ?? "(no limit named)"}`;
}

function socket(url: string): Promise<WebSocket> {
  const ws = new WebSocket(`${url.replace(/^http/, "ws")}/graphql`, "graphql-transport-ws");
  return new Promise((resolve, reject) => {
    ws.once("open", () => resolve(ws));
    ws.once("error", reject);
  });
}
const closed = (ws: WebSocket) => new Promise<string>((resolve) => ws.once("close", (code, reason) => resolve(`closed ${code} ${String(reason)}`)));

async function subscribeMany(url: string, count: number): Promise<string> {
  const ws = await socket(url);
  ws.send(JSON.stringify({ type: "connection_init" }));
  await new Promise((resolve) => ws.once("message", resolve));
  let refused = 0;
  let last = "";
  ws.on("message", (data) => {
    const message = JSON.parse(String(data)) as { type: string; payload?: Array<{ extensions?: { limit?: string } }> };
    if (message.type === "error") {
      refused++;
      last = message.payload?.[0]?.extensions?.limit ?? "";
    }
  });
  for (let i = 0; i < count; i++) ws.send(JSON.stringify({ type: "subscribe", id: String(i), payload: { query: "subscription { repairEntryEvents { kind } }" } }));
  while (refused < count - DEFAULT_LIMITS.maxSubscriptionsPerConnection) await new Promise((r) => setTimeout(r, 20));
  ws.close();
  return `${refused} of ${count} refused (${last})`;
}

async function main(): Promise<void> {
  const dir = tempDir();
  writeFileSync(join(dir.path, "kintsugi.yaml"), `listen: "127.0.0.1:0"\ndatabase: ${join(dir.path, "kintsugi.db")}\n`);
  const server = serveProcess(["--config", join(dir.path, "kintsugi.yaml")], dir.path);
  const base = await server.url;
  const pid = server.child.pid as number;
  const aliases = `{ ${Array.from({ length: 500 }, (_, i) => `a${i}: repairQueueEnabled`).join(" ")} }`;
  const explosion = `{ ...F0 } ${Array.from({ length: 12 }, (_, i) => `fragment F${i} on Query { ${i < 11 ? `a${i}: repairQueueEnabled b${i}: repairQueueEnabled ...F${i + 1} c${i}: searchRepairEntries { index } ...F${i + 1}` : "repairQueueEnabled"} }`).join(" ")}`;
  const joinCycle = `{ searchRepairEntries { ${"machine { repairEntries { ".repeat(3)}index${" } }".repeat(3)} } }`;
  const cases: Array<[string, () => Promise<string>]> = [
    ["deep query (40 levels)", () => post(base, `{ searchRepairEntries { ${"machine { repairEntries { ".repeat(20)}index${" } }".repeat(20)} } }`)],
    ["alias flood (500 aliases)", () => post(base, aliases)],
    ["fragment x alias explosion", () => post(base, explosion)],
    ["directive flood (300)", () => post(base, `{ repairQueueEnabled ${"@include(if: true) ".repeat(300)} }`)],
    ["token flood (1 MB document)", () => post(base, `{ ${"repairQueueEnabled ".repeat(50_000)} }`)],
    ["join cycle over budget (3 hops)", () => post(base, joinCycle)],
    ["50 MB WebSocket message", async () => {
      const ws = await socket(base);
      const why = closed(ws);
      ws.send(JSON.stringify({ type: "subscribe", id: "1", payload: { query: `subscription { repairEntryEvents { kind } } #${"x".repeat(50 * 1024 * 1024)}` } }));
      return why;
    }],
    [`${DEFAULT_LIMITS.maxSubscriptionsPerConnection + 1_000} subscriptions on one connection`, () => subscribeMany(base, DEFAULT_LIMITS.maxSubscriptionsPerConnection + 1_000)],
  ];
  try {
    console.log(`kintsugi with default limits: ${memory(pid)}`);
    const idle = (await healthWhile(base, new Promise((r) => setTimeout(r, 500)))).sort((a, b) => a - b);
    console.log(`${"idle".padEnd(36)} /health p50 ${pct(idle, 50)} ms, p99 ${pct(idle, 99)} ms`);
    for (const [name, run] of cases) {
      const answers: string[] = [];
      const work = (async () => {
        for (let i = 0; i < (name.includes("WebSocket") || name.includes("subscriptions") ? 3 : ROUNDS); i++) answers.push(await run());
      })();
      const latencies = (await healthWhile(base, work)).sort((a, b) => a - b);
      await work;
      console.log(`${name.padEnd(36)} /health p50 ${pct(latencies, 50)} ms, p99 ${pct(latencies, 99)} ms, max ${pct(latencies, 100)} ms; ${memory(pid)}; answer: ${answers[0]}`);
    }
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    dir.remove();
  }
}

await main();
