// bench/api: GraphQL requests per second over HTTP/1.1 keep-alive, kintsugi next to its anchor in the same run:
//   { repairQueueEnabled }            kintsugi vs a bare Apollo Server on node:http serving the same field
//                                     (goal: kintsugi at least 0.8x);
//   100-entry searchRepairEntries     12 scalar fields each, kintsugi vs a bare Apollo with its default plugins
//                                     (goal: kintsugi at least 2x).
// Each server runs in a child process (bench/api-server.ts); this process is the closed-loop client with CONNECTIONS
// connections, a warm-up, then timed windows that alternate between the servers; kintsugi runs twice, without and with
// the node options of the `kintsugi` executable's #! line (V8's heap sizing). All are measured twice: with NODE_ENV unset, and with
// NODE_ENV=production, which graphql-js reads when it loads (the `kintsugi` binary loads it so). The machine is
// shared and noisy: compare figures of the same run.
// Prints figures; asserts nothing. Run: npm run bench:api
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { createInterface } from "node:readline";
import { SEARCH_REPAIR_ENTRIES } from "./api-queries.js";
import { KINTSUGI_BIN, nodeOptionsOf } from "../test/support/run-cli.js";

const ENTRIES = 100;
const CONNECTIONS = 16;
const WARMUP_MS = 1_500;
const WINDOW_MS = 5_000;
const LIST = SEARCH_REPAIR_ENTRIES;
const QUERIES = [
  { name: "{ repairQueueEnabled }", query: "{ repairQueueEnabled }", goal: 0.8 },
  { name: `${ENTRIES}-entry searchRepairEntries`, query: LIST, goal: 2 },
];

// The node options the `kintsugi` executable starts with (its #! line): kintsugi is measured with and without them.
const EXECUTABLE_OPTIONS = nodeOptionsOf(KINTSUGI_BIN);
type Kind = "bare" | "kintsugi" | "kintsugi+options";
const KINDS: readonly Kind[] = ["bare", "kintsugi", "kintsugi+options"];

async function startServer(kind: Kind, production: boolean): Promise<{ child: ChildProcess; port: number }> {
  const env = { ...process.env };
  if (production) env["NODE_ENV"] = "production";
  else delete env["NODE_ENV"];
  const server = new URL("./api-server.ts", import.meta.url).pathname;
  const options = kind === "kintsugi+options" ? EXECUTABLE_OPTIONS : [];
  const child = spawn(process.execPath, [...options, "--import", "tsx", server, kind === "bare" ? "bare" : "kintsugi", String(ENTRIES)], {
    stdio: ["ignore", "pipe", "inherit"],
    env,
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    const match = /^port (\d+)$/.exec(line);
    if (match) return { child, port: Number(match[1]) };
  }
  throw new Error(`the ${kind} server ended before it listened`);
}

function post(agent: Agent, port: number, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/graphql",
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks).toString("utf8")) : reject(new Error(`HTTP ${res.statusCode}`))));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Checks that one answer carries data and no errors; returns its size in bytes. */
async function sample(agent: Agent, port: number, body: string): Promise<number> {
  const text = await post(agent, port, body);
  const parsed = JSON.parse(text) as { data?: unknown; errors?: unknown };
  if (parsed.errors !== undefined || parsed.data === undefined) throw new Error(`unexpected answer: ${text.slice(0, 200)}`);
  return Buffer.byteLength(text);
}

/** Requests completed in `ms` by CONNECTIONS closed-loop clients, and the seconds it took. */
async function window(agent: Agent, port: number, body: string, ms: number): Promise<{ done: number; seconds: number }> {
  let done = 0;
  let stop = false;
  const worker = async () => {
    while (!stop) {
      await post(agent, port, body);
      done++;
    }
  };
  const start = performance.now();
  const workers = Array.from({ length: CONNECTIONS }, worker);
  await new Promise((r) => setTimeout(r, ms));
  stop = true;
  await Promise.all(workers);
  return { done, seconds: (performance.now() - start) / 1000 };
}

// The machine is shared: the servers are measured in alternating short windows (ROUNDS of each).
const ROUNDS = 10;

for (const production of [false, true]) {
  const mode = production ? "NODE_ENV=production" : "NODE_ENV unset";
  const servers = Object.fromEntries(await Promise.all(KINDS.map(async (kind) => [kind, await startServer(kind, production)] as const))) as Record<
    Kind,
    { child: ChildProcess; port: number }
  >;
  try {
    for (const q of QUERIES) {
      const body = JSON.stringify({ query: q.query });
      const agents = Object.fromEntries(KINDS.map((kind) => [kind, new Agent({ keepAlive: true, maxSockets: CONNECTIONS })])) as Record<Kind, Agent>;
      const totals = Object.fromEntries(KINDS.map((kind) => [kind, { done: 0, seconds: 0 }])) as Record<Kind, { done: number; seconds: number }>;
      let bytes = 0;
      for (const kind of KINDS) {
        bytes = await sample(agents[kind], servers[kind].port, body);
        await window(agents[kind], servers[kind].port, body, WARMUP_MS);
      }
      for (let round = 0; round < ROUNDS; round++) {
        // Each round starts with another server, so that a load that comes and goes weighs on all alike.
        const order = KINDS.map((_, i) => KINDS[(i + round) % KINDS.length] as Kind);
        for (const kind of order) {
          const { done, seconds } = await window(agents[kind], servers[kind].port, body, WINDOW_MS / ROUNDS);
          totals[kind].done += done;
          totals[kind].seconds += seconds;
        }
      }
      const rps = (kind: Kind) => totals[kind].done / totals[kind].seconds;
      for (const kind of KINDS) console.log(`${mode}, ${kind.padEnd(16)} ${q.name}: ${rps(kind).toFixed(0)} req/s (${(bytes / 1024).toFixed(1)} KiB answers)`);
      console.log(`${mode}: ${q.name}: kintsugi ${(rps("kintsugi") / rps("bare")).toFixed(2)}x the bare Apollo (goal: at least ${q.goal}x)`);
      console.log(
        `${mode}: ${q.name}: kintsugi with the executable's node options (${EXECUTABLE_OPTIONS.join(" ")}) ${(rps("kintsugi+options") / rps("kintsugi")).toFixed(2)}x kintsugi without them`,
      );
      for (const kind of KINDS) agents[kind].destroy();
    }
  } finally {
    for (const kind of KINDS) servers[kind].child.kill("SIGTERM");
  }
}
