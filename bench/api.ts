// bench/api: GraphQL requests per second over HTTP/1.1 keep-alive, kintsugi next to its anchor in the same run:
//   { repairQueueEnabled }            kintsugi vs a bare Apollo Server on node:http serving the same field
//                                     (goal: kintsugi at least 0.8x);
//   100-entry searchRepairEntries     12 scalar fields each, kintsugi vs a bare Apollo with its default plugins
//                                     (goal: kintsugi at least 2x).
// Each server runs in a child process (bench/api-server.ts); this process is the closed-loop client with CONNECTIONS
// connections, a warm-up, then a timed window. Both servers are measured twice: with NODE_ENV unset, and with
// NODE_ENV=production, which graphql-js reads when it loads (the `kintsugi` binary loads it so). The machine is
// shared and noisy: compare figures of the same run.
// Prints figures; asserts nothing. Run: npm run bench:api
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { SEARCH_REPAIR_ENTRIES } from "./api-queries.js";

const ENTRIES = 100;
const CONNECTIONS = 16;
const WARMUP_MS = 1_500;
const WINDOW_MS = 5_000;
const LIST = SEARCH_REPAIR_ENTRIES;
const QUERIES = [
  { name: "{ repairQueueEnabled }", query: "{ repairQueueEnabled }", goal: 0.8 },
  { name: `${ENTRIES}-entry searchRepairEntries`, query: LIST, goal: 2 },
];

async function startServer(kind: "bare" | "kintsugi", production: boolean): Promise<{ child: ChildProcess; port: number }> {
  const env = { ...process.env };
  if (production) env["NODE_ENV"] = "production";
  else delete env["NODE_ENV"];
  const server = new URL("./api-server.ts", import.meta.url).pathname;
  const child = spawn(process.execPath, ["--import", "tsx", server, kind, String(ENTRIES)], { stdio: ["ignore", "pipe", "inherit"], env });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const match = /^port (\d+)$/.exec(line);
    if (match) return { child, port: Number(match[1]) };
  }
  throw new Error(`the ${kind} server ended before it listened`);
}

function post(agent: Agent, port: number, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/graphql", method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString("utf8")) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Requests per second over the window, after checking that one answer carries data and no errors. */
async function load(port: number, query: string): Promise<{ rps: number; bytes: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const body = JSON.stringify({ query });
  const sample = await post(agent, port, body);
  const parsed = JSON.parse(sample) as { data?: unknown; errors?: unknown };
  if (parsed.errors !== undefined || parsed.data === undefined) throw new Error(`unexpected answer: ${sample.slice(0, 200)}`);
  let counting = false;
  let done = 0;
  let stop = false;
  const worker = async () => {
    while (!stop) {
      await post(agent, port, body);
      if (counting) done++;
    }
  };
  const workers = Array.from({ length: CONNECTIONS }, worker);
  await new Promise((r) => setTimeout(r, WARMUP_MS));
  counting = true;
  const start = performance.now();
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  counting = false;
  const seconds = (performance.now() - start) / 1000;
  stop = true;
  await Promise.all(workers);
  agent.destroy();
  return { rps: done / seconds, bytes: Buffer.byteLength(sample) };
}

for (const production of [false, true]) {
  const mode = production ? "NODE_ENV=production" : "NODE_ENV unset";
  const results = new Map<string, Map<string, number>>();
  for (const kind of ["bare", "kintsugi"] as const) {
    const { child, port } = await startServer(kind, production);
    try {
      for (const q of QUERIES) {
        const { rps, bytes } = await load(port, q.query);
        if (!results.has(q.name)) results.set(q.name, new Map());
        results.get(q.name)?.set(kind, rps);
        console.log(`${mode}, ${kind.padEnd(8)} ${q.name}: ${rps.toFixed(0)} req/s (${(bytes / 1024).toFixed(1)} KiB answers)`);
      }
    } finally {
      child.kill("SIGTERM");
    }
  }
  for (const q of QUERIES) {
    const r = results.get(q.name) as Map<string, number>;
    const ratio = (r.get("kintsugi") as number) / (r.get("bare") as number);
    console.log(`${mode}: ${q.name}: kintsugi ${ratio.toFixed(2)}x the bare Apollo (goal: at least ${q.goal}x)`);
  }
}
