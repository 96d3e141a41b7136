// Reproduction: a real `kintsugi serve` on a fresh SQLite file, 100 connections x 100 repairEntryEvents subscriptions
// whose clients stop reading, an admin adding entries (4 at a time) for SECONDS_RUN seconds (20); prints the events,
// the subscriptions the server still holds at the end (/metrics), the closes the clients saw, peak RSS and /health
// p50/p99/max. A smaller stand-in for bench:abuse's slow-subscriber shape (no 1M-row file). Figures only.
// Run: npm run build && node --import tsx bench/slow-subscribers-repro.ts [path/to/bin/kintsugi.js]
// With KINTSUGI_PROFILE_DIR set, the server runs with --cpu-prof (or KINTSUGI_PROFILE=heap: --heap-prof) into that
// directory and is stopped with SIGTERM (so that it writes its profile) once the events end.
import { join, resolve } from "node:path";
import { startFakeSabakan } from "../test/support/fake-sabakan.js";
import { tempDir } from "../test/support/temp-dir.js";
import { BENCH_ADMIN, BENCH_VIEWER, MeasuredServer, percentile, writeBenchConfig } from "./abuse-server.js";
import { acknowledgedSocket } from "./abuse-subscriptions.js";
import { postAnswer } from "./abuse-shapes.js";
import type WebSocket from "ws";

const BIN = resolve(process.argv[2] ?? "bin/kintsugi.js");
const SECONDS = Number(process.env["SECONDS_RUN"] ?? 20);
const VIEWER = BENCH_VIEWER;
const ADMIN = BENCH_ADMIN;
const Q = `subscription { repairEntryEvents { kind entry { index address nodename machineType operation status step stepStatus stepCount deleted lastTransitionTime } } }`;

const dir = tempDir("kintsugi-slowsubs-");
const sabakan = await startFakeSabakan();
const config = writeBenchConfig(join(dir.path, "kintsugi.yaml"), sabakan.url);

const PROFILE_DIR = process.env["KINTSUGI_PROFILE_DIR"];
// node refuses --cpu-prof in NODE_OPTIONS: a shell puts it on node's command line.
const kind = process.env["KINTSUGI_PROFILE"] === "heap" ? "heap" : "cpu";
const profiling = PROFILE_DIR ? ["/bin/sh", "-c", `exec "$0" --${kind}-prof --${kind}-prof-dir=${resolve(PROFILE_DIR)} "$@"`] : [];
const server = await MeasuredServer.start(BIN, config, dir.path, profiling);
const sockets: WebSocket[] = [];
const closes = new Map<string, number>();
let peak = 0;
const rssTimer = setInterval(() => (peak = Math.max(peak, server.residentMb() ?? 0)), 200);
let fired = 0;
const { result, figures } = await server.measure(
  async () => {
    for (let c = 0; c < 100; c++) {
      const ws = await acknowledgedSocket(server.url, VIEWER);
      if (!ws) return `connection ${c} refused`;
      ws.on("close", (code) => closes.set(String(code), (closes.get(String(code)) ?? 0) + 1));
      sockets.push(ws);
      for (let i = 0; i < 100; i++) ws.send(JSON.stringify({ type: "subscribe", id: String(i), payload: { query: Q } }));
    }
    await new Promise((r) => setTimeout(r, 3000));
    for (const ws of sockets) ws.pause();
    const startRss = server.residentMb();
    const eventsBegan = Date.now();
    const until = performance.now() + SECONDS * 1000;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (performance.now() < until) {
          const i = fired++;
          await postAnswer(
            server.url,
            ADMIN,
            `mutation ($a: IPAddress!) { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: $a) { index } }`,
            {
              a: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
            },
          );
        }
      }),
    );
    const metrics = await (await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${VIEWER}` } })).text();
    const held = metrics.split("\n").find((l) => l.startsWith('kintsugi_subscriptions{topic="repairEntryEvents"} '));
    if (PROFILE_DIR) {
      const child = (server as unknown as { serve: { child: import("node:child_process").ChildProcess; exited: Promise<unknown> } }).serve;
      child.child.kill("SIGTERM");
      await child.exited;
    }
    const closedBy = new Map<string, number>();
    for (const r of server.logRecords()) if (typeof r["limit"] === "string") closedBy.set(r["limit"], (closedBy.get(r["limit"]) ?? 0) + 1);
    const lastClose = server
      .logRecords()
      .filter((r) => typeof r["limit"] === "string")
      .map((r) => Number(r["time"]))
      .at(-1);
    const closedAfter = lastClose === undefined ? "" : `, the last ${((lastClose - eventsBegan) / 1000).toFixed(1)} s into the events`;
    const closedText = closedBy.size ? `${[...closedBy].map(([limit, n]) => `${n} by ${limit}`).join(", ")}${closedAfter}` : "none";
    return `server closed connections: ${closedText}; rss before events ${startRss?.toFixed(0)} MB; subscriptions still held ${held}`;
  },
  (SECONDS + 60) * 1000,
  () => "timed out",
);
clearInterval(rssTimer);
for (const ws of sockets) ws.terminate();
const h = figures.health;
console.log(
  `${BIN}: ${result}; ${fired} adds; clients saw closes: ${[...closes].map(([c, n]) => `${n}x ${c}`).join(", ") || "none"}; peak RSS ${Math.max(peak, figures.peakMb)} MB (VmHWM ${figures.peakMb}); /health p50 ${percentile(h, 50).toFixed(0)} p99 ${percentile(h, 99).toFixed(0)} max ${h.at(-1)?.toFixed(0)} ms (${h.length} probes${figures.unanswered ? ", one unanswered" : ""})`,
);
await sabakan.close?.();
dir.remove();
process.exit(0);
