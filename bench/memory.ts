// bench/memory: kintsugi's start-up time and resident memory at a data center's size, on each store driver (goal: at most 150 MB with Kubernetes). For each driver (KINTSUGI_BENCH_DRIVERS, default sqlite,etcd) and each size
// (KINTSUGI_BENCH_SIZES history rows, default 100000,1000000), without Kubernetes and with it (the test API server;
// its client library alone is about 60 MB): a SQLite file of the schema before the store core (migrations 1-12)
// seeded with SQL (bench/memory-seed.ts: the history, 1,000 listed entries), then on SQLite a first start (the new
// code converts the file in it: "first start (upgrade)") and on etcd `kintsugi db copy` into a one-member etcd
// (timed, with etcd's memory). Each `kintsugi serve` (the built binary: run `npm run build` first) is measured from
// spawn to /health 200 and to the first GraphQL answer, its VmRSS and VmHWM after start, the first repairStats over
// the whole history and the memory after it, then 1,000 graphql-ws subscriptions to repairEntryEvents that each
// receive 20 changes (bench/memory-serve.ts; the subscribers connect from ten loopback addresses, 25 handshakes at a
// time, retrying as graphql-ws clients do: bench/subscriber-clients.ts). Last, unless KINTSUGI_BENCH_OUTCOMES=0, the smallest size again with
// the 1,000 kept poll outcomes of 1,000 skipped machines each (bench/abuse-seed.ts), without Kubernetes: what
// keeping them costs a replica. Prints figures and a summary table; asserts nothing. Run: npm run bench:memory.
// KINTSUGI_BENCH_BIN=/path/to/checkout/bin/kintsugi.js measures another build; KINTSUGI_BENCH_BINS=label=path,...
// several, each run on each build in turn (on SQLite each build starts on its own copy of the seeded file).
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeKubeApi } from "../test/support/fake-kube-api.js";
import { tempDir } from "../test/support/temp-dir.js";
import { copyIntoEtcd, etcdStoreConfig, mb, startBenchEtcd, type Resident } from "./memory-etcd.js";
import { seedMemoryDatabase, type MemorySeed } from "./memory-seed.js";
import { measureServe, type ServeFigures, type ServeRun } from "./memory-serve.js";
import { benchBins } from "./bench-bins.js";

const BINS = benchBins();

type Driver = "sqlite" | "etcd";

const list = (name: string, fallback: string) =>
  (process.env[name] ?? fallback)
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
const drivers = list("KINTSUGI_BENCH_DRIVERS", "sqlite,etcd").map((d) => {
  if (d !== "sqlite" && d !== "etcd") throw new Error(`KINTSUGI_BENCH_DRIVERS: ${d} is not sqlite or etcd`);
  return d as Driver;
});
const sizes = list("KINTSUGI_BENCH_SIZES", "100000,1000000").map((s) => {
  const n = Number(s);
  if (!Number.isInteger(n) || n < 10_000 || n > 10_000_000 || n % 10 !== 0)
    throw new Error(`KINTSUGI_BENCH_SIZES: ${s} is not a multiple of 10 from 10000 to 10000000`);
  return n;
});
const withOutcomes = process.env["KINTSUGI_BENCH_OUTCOMES"] !== "0";

/** One line of the summary table. */
interface Row {
  readonly driver: Driver;
  /** The build's label ("" when one build is measured). */
  readonly bin: string;
  readonly seed: MemorySeed;
  readonly kubernetes: boolean;
  /** The SQLite file's first start, or the etcd copy's seconds. */
  readonly upgradeSeconds?: number;
  readonly copySeconds?: number;
  readonly figures: ServeFigures;
  readonly etcd?: Resident;
}
const rows: Row[] = [];

/** One serve run; a server that does not start (or dies) is printed and counted as a row of failures. */
async function serve(run: ServeRun): Promise<ServeFigures> {
  try {
    return await measureServe(run);
  } catch (err) {
    console.log(`    failed: ${String(err).slice(0, 500)}`);
    return { healthSeconds: NaN, firstAnswerSeconds: NaN, failures: ["the server did not start or died"] };
  }
}

const kube = await startFakeKubeApi();
const kubernetesSection = `kubernetes:\n  kubeconfig: ${JSON.stringify(kube.kubeconfigPath)}\n`;
const now = Date.now();
const n = (v: number) => v.toLocaleString("en");

/** The runs of one driver on one seeded file: each Kubernetes variant, on the same store one after the other. */
async function scenario(driver: Driver, historyRows: number, outcomes: boolean, kubeVariants: readonly boolean[]): Promise<void> {
  const dir = tempDir("kintsugi-bench-memory-");
  const file = join(dir.path, "kintsugi.db");
  try {
    const seed = seedMemoryDatabase(file, historyRows, outcomes, now);
    console.log(
      `${driver}, ${n(seed.historyRows)} history rows, ${seed.outcomes} poll outcomes (seeded into a schema-12 SQLite file in ${seed.seconds.toFixed(1)} s):`,
    );
    const base = { dir: dir.path, since: seed.since, until: seed.until + 60_000, listedEntry: seed.firstListed };
    if (driver === "sqlite") {
      const stores = new Map<string, { store: string; upgradeSeconds: number }>();
      // Each build's copy of the seeded file, made before any start converts it.
      const files = BINS.map((_, b) => (b === 0 ? file : join(dir.path, `kintsugi-${b}.db`)));
      for (const own of files.slice(1)) copyFileSync(file, own);
      for (const [b, bin] of BINS.entries()) {
        const own = files[b]!;
        const store = `database: ${JSON.stringify(own)}\n`;
        console.log(`  first start (upgrade), without Kubernetes${bin.label ? ` (${bin.label})` : ""}:`);
        const first = await serve({ ...base, bin: bin.path, store, kubernetes: "", run: 0, startOnly: true });
        stores.set(bin.label, { store, upgradeSeconds: first.firstAnswerSeconds });
      }
      for (const [i, k8s] of kubeVariants.entries()) {
        for (const bin of BINS) {
          const { store, upgradeSeconds } = stores.get(bin.label)!;
          console.log(`  ${k8s ? "with Kubernetes" : "without Kubernetes"}${bin.label ? ` (${bin.label})` : ""}:`);
          const figures = await serve({ ...base, bin: bin.path, store, kubernetes: k8s ? kubernetesSection : "", run: i + 1, startOnly: false });
          rows.push({ driver, bin: bin.label, seed, kubernetes: k8s, upgradeSeconds, figures });
        }
      }
      return;
    }
    const etcd = await startBenchEtcd();
    try {
      const prefix = "/kintsugi-bench/";
      const copySeconds = await copyIntoEtcd(dir.path, file, etcd.endpoint, prefix);
      console.log(`  kintsugi db copy into etcd: ${copySeconds.toFixed(1)} s; etcd: ${mb(etcd.memory())}`);
      for (const [i, k8s] of kubeVariants.entries()) {
        for (const [b, bin] of BINS.entries()) {
          console.log(`  ${k8s ? "with Kubernetes" : "without Kubernetes"}${bin.label ? ` (${bin.label})` : ""}:`);
          const figures = await serve({
            ...base,
            bin: bin.path,
            store: etcdStoreConfig(etcd.endpoint, prefix),
            kubernetes: k8s ? kubernetesSection : "",
            run: (i + 1) * BINS.length + b,
            startOnly: false,
          });
          const etcdNow = etcd.memory();
          console.log(`    etcd: ${mb(etcdNow)}`);
          rows.push({ driver, bin: bin.label, seed, kubernetes: k8s, copySeconds, figures, etcd: etcdNow });
        }
      }
    } finally {
      await etcd.etcd.stop();
    }
  } finally {
    dir.remove();
  }
}

try {
  for (const driver of drivers) {
    const runs: Array<[number, boolean, boolean[]]> = sizes.map((size) => [size, false, [false, true]]);
    if (withOutcomes) runs.push([Math.min(...sizes), true, [false]]);
    for (const [size, outcomes, kubeVariants] of runs) {
      try {
        await scenario(driver, size, outcomes, kubeVariants);
      } catch (err) {
        console.log(`  failed: ${String(err).slice(0, 500)}`);
      }
    }
  }
} finally {
  await kube.close();
}

const s = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? "-" : `${v.toFixed(v < 10 ? 2 : 1)} s`);
const r = (m: Resident | undefined) => (m === undefined || Number.isNaN(m.rss) ? "-" : `${m.rss.toFixed(0)} (${m.peak.toFixed(0)})`);
console.log("\nSummary (MB: VmRSS (VmHWM)):\n");
console.log(
  `|${BINS.length > 1 ? " kintsugi |" : ""} driver | history rows | poll outcomes | Kubernetes | db copy | first start (upgrade) | /health 200 | first answer | RSS after start | first repairStats | RSS after it | RSS, 1,000 subscribers + 20 changes | etcd RSS | failed |`,
);
console.log(`|${BINS.length > 1 ? "---|" : ""}---|---|---|---|---|---|---|---|---|---|---|---|---|---|`);
for (const row of rows) {
  const f = row.figures;
  console.log(
    `|${BINS.length > 1 ? ` ${row.bin} |` : ""} ${row.driver} | ${n(row.seed.historyRows)} | ${n(row.seed.outcomes)} | ${row.kubernetes ? "yes" : "no"} | ${s(row.copySeconds)} | ${s(row.upgradeSeconds)} | ${s(f.healthSeconds)} | ${s(f.firstAnswerSeconds)} | ${r(f.started)} | ${s(f.statsSeconds)} | ${r(f.afterStats)} | ${r(f.subscribers)} | ${r(row.etcd)} | ${f.failures.join("; ") || "-"} |`,
  );
}
