// bench/abuse: hostile shapes against a real `kintsugi serve` at a data center's size. The test sabakan serves
// 10,000 machines; the database holds 1,000,000 history rows, 1,000 poll outcomes of 1,000 skipped machines each and
// a year of poll records (bench/abuse-seed.ts). The shapes: costly documents, replays, joins in subscriptions and
// hostile Kubernetes APIs (bench/abuse-shapes.ts); documents that held the event loop before validation, deep
// variables, the first request after a start, introspection (bench/abuse-document-shapes.ts); the status page's panels
// and the statistics next to a working queue (bench/abuse-status-shapes.ts); add storms and subscribers that stop
// reading (bench/abuse-load-shapes.ts). Each is sent from a viewer token (an operator's adds from an admin's), one client
// and then 4 at once (a request shape's clients ask again until 5 s passed), each on a freshly started server (so its
// peak memory is the shape's): prints per shape the answer (refused with the limit named, or answered and its bytes;
// alike answers counted), GET /health p50/p99/max while it ran (probed every 50 ms from a worker thread), and the
// server's own event-loop delay over the shape (p99 and max of kintsugi_event_loop_delay_seconds, from /metrics
// scraped before and after; "-" from a build that does not serve it), which tells the server's blocking apart from
// this machine's scheduler delaying the probe, and the server's peak RSS (VmHWM). A shape that has not ended after SHAPE_SECONDS is reported as timed out (the server is
// then killed); one that kills the server is reported as crashed. Goal: /health p99 under 100 ms and RSS under
// 500 MB in every case. Figures only; asserts nothing.
// The seeded file is the schema before the store core; each build converts it once (as an upgrade's first start
// does) and keeps its converted file: every measured server starts on a copy of its build's file, so a shape that
// adds entries leaves nothing to the next.
// Run: npm run bench:abuse. Another build: KINTSUGI_BENCH_BIN=/path/to/checkout/bin/kintsugi.js (it must be built;
// the config written uses only keys that kintsugi had before the API's limits); several, alternating shape by shape in
// one run: KINTSUGI_BENCH_BINS=label=path,label=path; KINTSUGI_BENCH_SHAPES=regexp runs only the shapes whose names
// match; KINTSUGI_BENCH_CLIENTS=1,4 the client counts of a request shape; KINTSUGI_BENCH_SHAPE_SECONDS sets the timeout; KINTSUGI_BENCH_DIR keeps the seeded file and each build's
// converted file there for the next run (a conversion takes minutes). Before a shape (but the first request after a
// start) the server is left to finish its start-up work: /health answering five times in a row within 20 ms
// (KINTSUGI_BENCH_SETTLED_MS), for at most 60 s (KINTSUGI_BENCH_SETTLE_LIMIT_MS). With KINTSUGI_PROFILE_DIR set, each
// server runs with --cpu-prof into that directory (and is stopped with SIGTERM, so that it writes the profile).
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CKE_SEARCH_MACHINES } from "../test/support/cost-shapes.js";
import { startFakeSabakan } from "../test/support/fake-sabakan.js";
import { HostileKubeApi } from "../test/support/hostile-kube-api.js";
import { tempDir } from "../test/support/temp-dir.js";
import { fleetAddress, fleetSerial, HISTORY_ROWS, MACHINES_PER_RECENT_POLL, REPLAY_DAYS, seedAbuseDatabase, SKIPPED_PER_OUTCOME } from "./abuse-seed.js";
import { CachedSabakan } from "./abuse-sabakan.js";
import { benchBins } from "./bench-bins.js";
import { BENCH_ADMIN, BENCH_VIEWER, GUARD_MB, MeasuredServer, percentile, writeBenchConfig, type ServerFigures } from "./abuse-server.js";
import { postAnswer, SHAPES, type Shape } from "./abuse-shapes.js";
import { DOCUMENT_SHAPES } from "./abuse-document-shapes.js";
import { LOAD_SHAPES } from "./abuse-load-shapes.js";
import { STATUS_SHAPES } from "./abuse-status-shapes.js";
import { serveProcess } from "../test/support/serve-process.js";

const FLEET = 10_000;
const AT_ONCE = 4;
/** The client counts a request shape is run with (KINTSUGI_BENCH_CLIENTS=4 runs only the four at once). */
const CLIENTS = (process.env["KINTSUGI_BENCH_CLIENTS"] ?? `1,${AT_ONCE}`).split(",").map(Number);
const SHAPE_SECONDS = Number(process.env["KINTSUGI_BENCH_SHAPE_SECONDS"] ?? 30);
/** The builds measured, each shape on each in turn. */
const BINS = benchBins();
/** Only the shapes whose name matches this regular expression (default: all). */
const ONLY = new RegExp(process.env["KINTSUGI_BENCH_SHAPES"] ?? "");
const PROFILE_DIR = process.env["KINTSUGI_PROFILE_DIR"];
// node refuses --cpu-prof in NODE_OPTIONS: a shell puts it on node's command line.
const PROFILING = PROFILE_DIR ? ["/bin/sh", "-c", `exec "$0" --cpu-prof --cpu-prof-dir=${resolve(PROFILE_DIR)} "$@"`] : [];
const VIEWER = BENCH_VIEWER;
const ADMIN = BENCH_ADMIN;

function config(dir: string, sabakan: CachedSabakan, kube: HostileKubeApi | null): string {
  const kubeLines = kube ? `kubernetes: { kubeconfig: ${JSON.stringify(kube.kubeconfigPath)} }\nrunner: { interval_seconds: 1 }\n` : "";
  return writeBenchConfig(
    join(dir, kube ? "kintsugi-kube.yaml" : "kintsugi.yaml"),
    sabakan.url,
    `poll_records: { keep_days: 366, max_bytes: 1073741824 }\n${kubeLines}`,
  );
}

const ms = (v: number) => (Number.isNaN(v) ? "-" : v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${v.toFixed(v < 10 ? 1 : 0)} ms`);

function row(name: string, clients: number, answer: string, f: ServerFigures, bin: string): string {
  const h = f.health;
  const lower = f.unanswered ? ">=" : "";
  const health = h.length === 0 ? "no answer" : `${ms(percentile(h, 50))} / ${lower}${ms(percentile(h, 99))} / ${lower}${ms(h.at(-1)!)}`;
  const goal = h.length > 0 && percentile(h, 99) < 100 && f.peakMb < 500 && !f.gone ? "" : " (misses the goal)";
  const gone = f.gone && !answer.includes(f.gone) ? `; ${f.gone}` : "";
  const loop = f.loopDelay ? `${ms(f.loopDelay.p99)} / ${ms(f.loopDelay.max)}` : "-";
  return `| ${name} | ${clients} |${bin ? ` ${bin} |` : ""} ${answer}${gone} | ${health} (${h.length} probes${f.failedProbes ? `, ${f.failedProbes} failed` : ""}) | ${loop} | ${Math.round(f.peakMb)} MB${goal} |`;
}

const DB_FILES = ["kintsugi.db", "kintsugi.db-wal", "kintsugi.db-shm"];

/** The converted file of `bin` (one per build: each converts the seeded file as its own first start would). */
const kept = (bin: { label: string }, file: string) => `pristine-${bin.label ? `${bin.label}-` : ""}${file}`;

/** Starts `bin` once on a copy of the seeded file, which it converts, and keeps the converted file for its measured servers. */
async function convertOnce(dir: string, configPath: string, bin: { label: string; path: string }): Promise<number> {
  for (const f of DB_FILES) {
    rmSync(join(dir, f), { force: true });
    if (existsSync(join(dir, `seeded-${f}`))) copyFileSync(join(dir, `seeded-${f}`), join(dir, f));
  }
  const began = performance.now();
  const serve = serveProcess(["--config", configPath], dir, undefined, undefined, bin.path);
  await serve.url;
  serve.child.kill("SIGTERM");
  await serve.exited;
  for (const f of DB_FILES) if (existsSync(join(dir, f))) copyFileSync(join(dir, f), join(dir, kept(bin, f)));
  return (performance.now() - began) / 1000;
}

/** Puts `bin`'s converted file back as it was kept. */
function restoreDatabase(dir: string, bin: { label: string }): void {
  for (const f of DB_FILES) {
    rmSync(join(dir, f), { force: true });
    if (existsSync(join(dir, kept(bin, f)))) copyFileSync(join(dir, kept(bin, f)), join(dir, f));
  }
}

async function measureShape(
  dir: string,
  sabakan: CachedSabakan,
  shape: Shape,
  clients: number,
  now: number,
  bin: { label: string; path: string },
): Promise<string> {
  restoreDatabase(dir, bin);
  let fired = 0;
  const kube = shape.kube
    ? await HostileKubeApi.start(shape.kube.behaviour, shape.kube.listBytes === undefined ? {} : { listBytes: shape.kube.listBytes })
    : null;
  try {
    const server = await MeasuredServer.start(bin.path, config(dir, sabakan, kube), dir, PROFILING);
    // What CKE asks every minute: how the server learns the fleet's size before the shape.
    if (!kube && !shape.cold) {
      await postAnswer(server.url, VIEWER, CKE_SEARCH_MACHINES);
      await settled(server.url);
    }
    const add = (i: number) =>
      postAnswer(server.url, ADMIN, `mutation ($a: IPAddress!) { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: $a) { index } }`, {
        a: fleetAddress(FLEET - 1 - i),
      });
    // A working queue next to the shape: its machines are the fleet's last (the shapes' own adds come after them).
    for (let first = 0; first < (shape.queue ?? 0); first += 100) {
      await Promise.all(Array.from({ length: Math.min(100, (shape.queue ?? 0) - first) }, (_, i) => add(first + i)));
    }
    // The events fired come from machines no shape adds.
    const fire = async () => void (await add(2_000 + fired++));
    const context = {
      url: server.url,
      viewer: VIEWER,
      admin: ADMIN,
      fleet: FLEET,
      sabakanRequests: () => sabakan.requests,
      kube,
      fire,
      residentMb: () => server.residentMb(),
      gone: () => server.whenGone(),
      logRecords: () => server.logRecords(),
      now,
    };
    await shape.prepare?.(context);
    let progress = "";
    const { result, figures } = await server.measure(
      () => shape.run(context, clients, (p) => (progress = p)),
      SHAPE_SECONDS * 1000,
      (limit) => `timed out after ${limit / 1000} s${progress ? ` (${progress})` : ""}`,
    );
    return row(shape.name, clients, result, figures, bin.label);
  } catch (err) {
    return `| ${shape.name} | ${clients} |${bin.label ? ` ${bin.label} |` : ""} bench failed: ${(err as Error).message.slice(0, 200)} | - | - | - |`;
  } finally {
    await kube?.close();
  }
}

/** How long a /health answer may take for the server to count as settled, and the longest wait for it (a loaded machine's /health seldom answers five times in a row within 20 ms). */
const SETTLED_MS = Number(process.env["KINTSUGI_BENCH_SETTLED_MS"] ?? 20);
const SETTLE_LIMIT_MS = Number(process.env["KINTSUGI_BENCH_SETTLE_LIMIT_MS"] ?? 60_000);

/**
 * Waits until the server's start-up work (the summaries of a year of repairs, the first poll's conversion of its
 * state) is over: five /health answers in a row under SETTLED_MS, or SETTLE_LIMIT_MS. Its cost is the start's, not the shape's.
 */
async function settled(url: string): Promise<void> {
  const until = performance.now() + SETTLE_LIMIT_MS;
  for (let quick = 0; quick < 5 && performance.now() < until;) {
    const began = performance.now();
    await fetch(`${url}/health`).then((r) => r.arrayBuffer());
    quick = performance.now() - began < SETTLED_MS ? quick + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A directory kept between runs (KINTSUGI_BENCH_DIR), or a fresh one removed at the end. */
function benchDir(): { path: string; remove: () => void } {
  const kept = process.env["KINTSUGI_BENCH_DIR"];
  if (!kept) return tempDir("kintsugi-bench-abuse-");
  mkdirSync(kept, { recursive: true });
  return { path: kept, remove: () => undefined };
}

async function main(): Promise<void> {
  const dir = benchDir();
  const fake = await startFakeSabakan();
  const sabakan = await CachedSabakan.start(fake);
  try {
    for (let i = 0; i < FLEET; i++) {
      fake.addMachine({
        serial: fleetSerial(i),
        rack: Math.floor(i / 30),
        indexInRack: (i % 30) + 1,
        ipv4: [fleetAddress(i)],
        bmcIPv4: `10.200.${Math.floor(i / 250)}.${i % 250}`,
        labels: { product: "R640", datacenter: "dc1" },
      });
    }
    // A kept directory holds the seeded file, the time it was seeded at (its data is dated from then) and each build's converted file.
    const seededAt = join(dir.path, "seeded-at");
    const reuse = existsSync(seededAt) && existsSync(join(dir.path, "seeded-kintsugi.db"));
    const now = reuse ? Number(readFileSync(seededAt, "utf8")) : Date.now();
    console.log(`kintsugi: ${BINS.map((b) => (b.label ? `${b.label} = ${b.path}` : b.path)).join(", ")}`);
    if (reuse) console.log(`sizes: as seeded in ${dir.path} at ${new Date(now).toISOString()} (the seeded file is reused)`);
    else {
      const seeded = seedAbuseDatabase(join(dir.path, "kintsugi.db"), now);
      for (const f of DB_FILES) if (existsSync(join(dir.path, f))) copyFileSync(join(dir.path, f), join(dir.path, `seeded-${f}`));
      writeFileSync(seededAt, String(now));
      console.log(
        `sizes: sabakan ${FLEET.toLocaleString("en")} machines; ${seeded.historyRows.toLocaleString("en")} history rows (${HISTORY_ROWS / 10} repairs); ` +
          `${seeded.outcomes} poll outcomes of ${SKIPPED_PER_OUTCOME} skipped machines; ${seeded.pollRecords.toLocaleString("en")} poll records ` +
          `(a year, one a minute; the last ${REPLAY_DAYS} days ${MACHINES_PER_RECENT_POLL} machines each; ${seeded.pollRecordMegabytes.toFixed(0)} MB) seeded in ${seeded.seconds.toFixed(0)} s`,
      );
    }
    const began = performance.now();
    await fetch(`${fake.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: CKE_SEARCH_MACHINES }),
    }).then((r) => r.arrayBuffer());
    console.log(
      `the test sabakan (graphql-js in this process) answers CKE's fleet search in ${((performance.now() - began) / 1000).toFixed(2)} s; kintsugi asks it through a cache of its answers (bench/abuse-sabakan.ts)`,
    );
    for (const bin of BINS.filter((b) => !existsSync(join(dir.path, kept(b, "kintsugi.db"))))) {
      const converted = await convertOnce(dir.path, config(dir.path, sabakan, null), bin);
      console.log(
        `the first start (${bin.label || bin.path}) converted the seeded file in ${converted.toFixed(0)} s; its servers start on copies of that file`,
      );
    }
    console.log(`each shape on a fresh server, from a viewer token; timeout ${SHAPE_SECONDS} s; the bench kills a server past ${GUARD_MB} MB RSS\n`);
    const several = BINS.length > 1;
    console.log(`| shape | clients |${several ? " kintsugi |" : ""} answer | /health p50 / p99 / max | server event-loop delay p99 / max | peak RSS |`);
    console.log(`|---|---|${several ? "---|" : ""}---|---|---|---|`);
    for (const shape of [...SHAPES, ...DOCUMENT_SHAPES, ...STATUS_SHAPES, ...LOAD_SHAPES].filter((s) => ONLY.test(s.name))) {
      for (const clients of shape.once ? [1] : CLIENTS) {
        for (const bin of BINS) console.log(await measureShape(dir.path, sabakan, shape, clients, now, bin));
      }
    }
  } finally {
    await sabakan.close();
    await fake.close();
    dir.remove();
  }
}

await main();
