// bench/abuse: the cost shapes (test/support/cost-shapes.ts) and the status page's and statistics' shapes
// (bench/abuse-status-shapes.ts) against a real `kintsugi serve` at a data center's size. The test sabakan serves
// 10,000 machines; the database holds 1,000,000 history rows, 1,000 poll outcomes of 1,000 skipped machines each and
// a year of poll records (bench/abuse-seed.ts). Each shape (bench/abuse-shapes.ts) is sent from a viewer token, one
// client and then 4 at once (a request shape's clients ask again until 5 s passed), each on a freshly started server
// (so its peak memory is the shape's): prints per shape the answer (refused with the limit named, or answered and its
// bytes; alike answers counted), GET /health p50/p99/max while it ran (probed every 50 ms from a worker thread), and
// the server's peak RSS (VmHWM). A shape that has not ended after SHAPE_SECONDS is reported as timed out (the server is
// then killed); one that kills the server is reported as crashed. Goal: /health p99 under 100 ms and RSS under
// 500 MB in every case. Figures only; asserts nothing.
// Run: npm run bench:abuse. Another build: KINTSUGI_BENCH_BIN=/path/to/checkout/bin/kintsugi.js (it must be built;
// the config written uses only keys that kintsugi had before the API's limits); KINTSUGI_BENCH_SHAPES=regexp runs only the
// shapes whose names match; KINTSUGI_BENCH_SHAPE_SECONDS sets the timeout; KINTSUGI_BENCH_DATABASE=FILE copies FILE
// instead of seeding (see GIVEN_DATABASE).
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { sha256Hex } from "../src/auth/tokens.js";
import { CKE_SEARCH_MACHINES } from "../test/support/cost-shapes.js";
import { startFakeSabakan } from "../test/support/fake-sabakan.js";
import { HostileKubeApi } from "../test/support/hostile-kube-api.js";
import { KINTSUGI_BIN } from "../test/support/run-cli.js";
import { tempDir } from "../test/support/temp-dir.js";
import { fleetAddress, fleetSerial, HISTORY_ROWS, MACHINES_PER_RECENT_POLL, REPLAY_DAYS, seedAbuseDatabase, SKIPPED_PER_OUTCOME } from "./abuse-seed.js";
import { CachedSabakan } from "./abuse-sabakan.js";
import { GUARD_MB, MeasuredServer, percentile, type ServerFigures } from "./abuse-server.js";
import { postAnswer, SHAPES, type Shape } from "./abuse-shapes.js";
import { STATUS_SHAPES } from "./abuse-status-shapes.js";

const FLEET = 10_000;
const AT_ONCE = 4;
const SHAPE_SECONDS = Number(process.env["KINTSUGI_BENCH_SHAPE_SECONDS"] ?? 30);
const BIN = process.env["KINTSUGI_BENCH_BIN"] ?? KINTSUGI_BIN;
/** Only the shapes whose name matches this regular expression (default: all). */
const ONLY = new RegExp(process.env["KINTSUGI_BENCH_SHAPES"] ?? "");
/**
 * A database to copy instead of seeding one: the seeded file converted once (a first start converts a million rows in
 * a minute on a quiet machine and in a quarter of an hour on a loaded one, past the bench's start timeout), so that the
 * runs of two builds start from the same file. Made as the bench seeds it (bench/abuse-seed.ts), then started once.
 */
const GIVEN_DATABASE = process.env["KINTSUGI_BENCH_DATABASE"];
const VIEWER = "kintsugi_bench-abuse-viewer-token";
const ADMIN = "kintsugi_bench-abuse-admin-token";

function config(dir: string, sabakan: CachedSabakan, kube: HostileKubeApi | null): string {
  const path = join(dir, kube ? "kintsugi-kube.yaml" : "kintsugi.yaml");
  writeFileSync(
    path,
    `listen: "127.0.0.1:0"
database: ./kintsugi.db
sabakan:
  url: "${sabakan.url}"
  schedule: "0 0 1 1 *"
poll_records: { keep_days: 366, max_bytes: 1073741824 }
${kube ? `kubernetes: { kubeconfig: ${JSON.stringify(kube.kubeconfigPath)} }\nrunner: { interval_seconds: 1 }\n` : ""}repair:
  repair_procedures:
    - machine_types: ["qemu"]
      repair_operations:
        - operation: unhealthy
          repair_steps:
            - repair_command: ["true"]
          health_check_command: ["false"]
auth:
  anonymous: none
  tokens:
    - { name: dashboard, role: viewer, sha256: "${sha256Hex(VIEWER)}" }
    - { name: bench, role: admin, sha256: "${sha256Hex(ADMIN)}" }
`,
  );
  return path;
}

const ms = (v: number) => (Number.isNaN(v) ? "-" : v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${v.toFixed(v < 10 ? 1 : 0)} ms`);

function row(name: string, clients: number, answer: string, f: ServerFigures): string {
  const h = f.health;
  const lower = f.unanswered ? ">=" : "";
  const health = h.length === 0 ? "no answer" : `${ms(percentile(h, 50))} / ${lower}${ms(percentile(h, 99))} / ${lower}${ms(h.at(-1)!)}`;
  const goal = h.length > 0 && percentile(h, 99) < 100 && f.peakMb < 500 && !f.gone ? "" : " (misses the goal)";
  const gone = f.gone && !answer.includes(f.gone) ? `; ${f.gone}` : "";
  return `| ${name} | ${clients} | ${answer}${gone} | ${health} (${h.length} probes${f.failedProbes ? `, ${f.failedProbes} failed` : ""}) | ${Math.round(f.peakMb)} MB${goal} |`;
}

let fired = 0;

async function measureShape(dir: string, sabakan: CachedSabakan, shape: Shape, clients: number, now: number): Promise<string> {
  const kube = shape.kube
    ? await HostileKubeApi.start(shape.kube.behaviour, shape.kube.listBytes === undefined ? {} : { listBytes: shape.kube.listBytes })
    : null;
  try {
    const server = await MeasuredServer.start(BIN, config(dir, sabakan, kube), dir);
    // What CKE asks every minute: how the server learns the fleet's size before the shape.
    if (!kube) await postAnswer(server.url, VIEWER, CKE_SEARCH_MACHINES);
    const fire = async () => {
      const i = fired++;
      await postAnswer(server.url, ADMIN, `mutation ($a: IPAddress!) { addRepairEntry(operation: "unhealthy", machineType: "qemu", address: $a) { index } }`, {
        a: fleetAddress(FLEET - 1 - i),
      });
    };
    const context = { url: server.url, viewer: VIEWER, sabakanRequests: () => sabakan.requests, kube, fire, gone: () => server.whenGone(), now };
    await shape.prepare?.(context);
    let progress = "";
    const { result, figures } = await server.measure(
      () => shape.run(context, clients, (p) => (progress = p)),
      SHAPE_SECONDS * 1000,
      (limit) => `timed out after ${limit / 1000} s${progress ? ` (${progress})` : ""}`,
    );
    return row(shape.name, clients, result, figures);
  } catch (err) {
    return `| ${shape.name} | ${clients} | bench failed: ${(err as Error).message.slice(0, 200)} | - | - |`;
  } finally {
    await kube?.close();
  }
}

async function main(): Promise<void> {
  const dir = tempDir("kintsugi-bench-abuse-");
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
    const now = Date.now();
    console.log(`kintsugi: ${BIN}`);
    if (GIVEN_DATABASE !== undefined) {
      copyFileSync(GIVEN_DATABASE, join(dir.path, "kintsugi.db"));
      console.log(`sizes: sabakan ${FLEET.toLocaleString("en")} machines; the database a copy of ${GIVEN_DATABASE}`);
    } else {
      const seeded = seedAbuseDatabase(join(dir.path, "kintsugi.db"), now);
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
    console.log(`each shape on a fresh server, from a viewer token; timeout ${SHAPE_SECONDS} s; the bench kills a server past ${GUARD_MB} MB RSS\n`);
    console.log("| shape | clients | answer | /health p50 / p99 / max | peak RSS |");
    console.log("|---|---|---|---|---|");
    for (const shape of [...SHAPES, ...STATUS_SHAPES].filter((s) => ONLY.test(s.name))) {
      for (const clients of shape.once ? [1] : [1, AT_ONCE]) console.log(await measureShape(dir.path, sabakan, shape, clients, now));
    }
  } finally {
    await sabakan.close();
    await fake.close();
    dir.remove();
  }
}

await main();
