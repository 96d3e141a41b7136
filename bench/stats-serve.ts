// bench/stats-serve: the first repairStats after an upgrade, through a real `kintsugi serve` on a SQLite file of
// 1,000,000 history rows (bench/memory-seed: one repair a minute, ten records each, the newest 10,000 kept as finished
// repairs, the newest 1,000 listed as entries), converted by this checkout to the key-value table, so no repair's
// summary is stored yet: the leader's keeper backfills them while the query reads. Per build and round, on a fresh
// copy of the converted file: the first repairStats over the whole history, the next 10 (p50 and max: the backfill
// may still be under way), `/health` probed every 50 ms from a worker thread meanwhile (p50/p99/max), and the server's
// VmRSS (VmHWM) at the end. Prints figures; asserts nothing.
// KINTSUGI_BENCH_BINS=label=path,... alternates builds round by round (they must read this checkout's value format);
// KINTSUGI_BENCH_ROUNDS (3), KINTSUGI_BENCH_ROWS (1000000); KINTSUGI_BENCH_DIR keeps the converted file and reuses it.
// Run: npm run bench:stats-serve (it builds first).
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { openSqliteStore } from "../src/store/kv/sqlite/open-sqlite-store.js";
import { serveProcess } from "../test/support/serve-process.js";
import { tempDir } from "../test/support/temp-dir.js";
import { benchBins } from "./bench-bins.js";
import { resident } from "./memory-etcd.js";
import { seedMemoryDatabase } from "./memory-seed.js";

const ROUNDS = Number(process.env["KINTSUGI_BENCH_ROUNDS"] ?? 3);
const ROWS = Number(process.env["KINTSUGI_BENCH_ROWS"] ?? 1_000_000);
const LATER = 10;
const NOW = Date.UTC(2026, 10, 1);
const STATS = `query($s: DateTime!, $u: DateTime!) { repairStats(since: $s, until: $u) {
  machineType operation entries successRate timeToRepair { p50Seconds p90Seconds maxSeconds } withHistory } }`;

const secs = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const at = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const load = () => `load ${loadavg()[0]!.toFixed(1)}`;

/** Probes `url` every 50 ms in a worker thread (so this thread's awaits do not delay the probes) until told to stop. */
function probeHealth(url: string): { stop(): Promise<number[]> } {
  const worker = new Worker(
    `const { parentPort, workerData } = require("node:worker_threads");
     const times = []; let on = true;
     parentPort.on("message", () => { on = false; });
     (async () => {
       while (on) {
         const t = performance.now();
         try { await fetch(workerData); } catch {}
         times.push(performance.now() - t);
         await new Promise((r) => setTimeout(r, 50));
       }
       parentPort.postMessage(times);
     })();`,
    { eval: true, workerData: url },
  );
  return {
    stop: () =>
      new Promise((resolve) => {
        worker.once("message", (times: number[]) => void worker.terminate().then(() => resolve(times.sort((a, b) => a - b))));
        worker.postMessage("stop");
      }),
  };
}

const keep = process.env["KINTSUGI_BENCH_DIR"];
const dir = keep ? { path: keep, remove: () => undefined } : tempDir("kintsugi-bench-stats-serve-");
mkdirSync(dir.path, { recursive: true });
const converted = join(dir.path, `converted-${ROWS}.db`);
const seedFile = join(dir.path, `seeded-${ROWS}.json`);
let range: { since: number; until: number };
if (keep && existsSync(converted) && existsSync(seedFile)) {
  range = (await import(seedFile, { with: { type: "json" } })).default as typeof range;
  console.log(`reusing ${converted}`);
} else {
  const seeded = join(dir.path, "seeded.db");
  const seed = seedMemoryDatabase(seeded, ROWS, false, NOW);
  const began = performance.now();
  const store = await openSqliteStore({ path: seeded });
  await store.close();
  console.log(
    `seeded ${ROWS.toLocaleString("en")} history rows in ${seed.seconds.toFixed(1)} s, converted by this checkout in ${secs(performance.now() - began)} (${load()})`,
  );
  copyFileSync(seeded, converted);
  range = { since: seed.since, until: seed.until };
  writeFileSync(seedFile, JSON.stringify(range));
}

const rows: string[] = [];
try {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const bin of benchBins()) {
      const runDir = join(dir.path, `run-${bin.label || "this"}`);
      mkdirSync(runDir, { recursive: true });
      copyFileSync(converted, join(runDir, "kintsugi.db"));
      writeFileSync(join(runDir, "kintsugi.yaml"), `listen: "127.0.0.1:0"\ndatabase: ${join(runDir, "kintsugi.db")}\n`);
      const loadBefore = load();
      const server = serveProcess(["--config", join(runDir, "kintsugi.yaml")], runDir, undefined, undefined, bin.path);
      try {
        const base = await server.url;
        const gql = async () => {
          const res = await fetch(`${base}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ query: STATS, variables: { s: new Date(range.since).toISOString(), u: new Date(range.until).toISOString() } }),
          });
          const body = (await res.json()) as { data?: { repairStats: Array<{ withHistory: number }> }; errors?: Array<{ message: string }> };
          if (body.errors || !body.data) throw new Error(body.errors?.[0]?.message ?? `HTTP ${res.status}`);
          return body.data.repairStats.reduce((n, g) => n + g.withHistory, 0);
        };
        const probes = probeHealth(`${base}/health`);
        let began = performance.now();
        const histories = await gql();
        const first = performance.now() - began;
        const later: number[] = [];
        for (let i = 0; i < LATER; i++) {
          began = performance.now();
          await gql();
          later.push(performance.now() - began);
        }
        later.sort((a, b) => a - b);
        const health = await probes.stop();
        const memory = resident(server.child.pid as number);
        const row = `| ${round} | ${bin.label || "this checkout"} | ${secs(first)} (${histories} with history) | ${secs(at(later, 0.5))} / ${secs(later.at(-1)!)} | ${at(health, 0.5).toFixed(0)} / ${at(health, 0.99).toFixed(0)} / ${health.at(-1)!.toFixed(0)} ms (${health.length} probes) | ${memory.rss.toFixed(0)} (${memory.peak.toFixed(0)}) | ${loadBefore}, ${load()} |`;
        console.log(row);
        rows.push(row);
      } finally {
        server.child.kill("SIGTERM");
        await server.exited;
      }
    }
  }
} finally {
  if (!keep) dir.remove();
}
console.log(
  [
    "",
    `| round | kintsugi | first repairStats | next ${LATER}: p50 / max | /health p50 / p99 / max | MB: VmRSS (VmHWM) | load before, after |`,
    "|---|---|---|---|---|---|---|",
    ...rows,
  ].join("\n"),
);
