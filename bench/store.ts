// bench/store: the two store backends side by side in one run, SQLite against a single-member etcd that this bench
// starts on loopback (as the tests do: test/support/test-etcd.ts, Debian's etcd-server):
//   list       searchRepairEntries over HTTP on the 2 x MUTATIONS entries just added: requests per second (CONNECTIONS in flight);
//   mutations  addRepairEntry over HTTP, one at a time and CONNECTIONS in flight: mutations per second;
//   runner     RUNNER_ENTRIES entries with a zero-watch step and an instant command: history records per second
//              from enabling the queue until every entry succeeded;
//   failover   (etcd only) two real `kintsugi serve` processes (the built binary); SIGKILL the leader (no resignation),
//              then the time until the other replica makes its first transition (an entry added right after the kill
//              leaves QUEUED), over FAILOVERS kills; the lease TTL is LEASE_TTL s.
// Prints figures; asserts nothing. Run: npm run bench:store
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KintsugiConfig } from "../src/config/kintsugi-config.js";
import { DEFAULT_ETCD_CONFIG } from "../src/config/etcd-config.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../src/domain/queue/repair-config.js";
import { untilOneLeads } from "../test/support/etcd-replicas.js";
import { startTestKintsugi, type TestKintsugi } from "../test/support/kintsugi-server.js";
import { serveProcess, type ServeProcess } from "../test/support/serve-process.js";
import { tempDir } from "../test/support/temp-dir.js";
import { startTestEtcd, type TestEtcd } from "../test/support/test-etcd.js";
import { until } from "../test/support/until.js";

const LIST_REQUESTS = 500;
const MUTATIONS = 300;
const RUNNER_ENTRIES = 200;
const CONNECTIONS = 8;
const FAILOVERS = 3;
const LEASE_TTL = 3;

// A machine is healthy once its repair command ran: `sh MACHINES health|fix ADDRESS`, state in files beside it.
const MACHINES = join(tempDir("kintsugi-bench-machines-").path, "machine.sh");
writeFileSync(MACHINES, `#!/bin/sh\ncase $1 in health) [ -f "$0-$2" ] && echo true || echo false ;; fix) : > "$0-$2" ;; esac\n`);
const HEALTHY = ["sh", MACHINES, "health"];
const FIX = ["sh", MACHINES, "fix"];

const INSTANT: RepairConfig = {
  ...EMPTY_REPAIR_CONFIG,
  maxConcurrentRepairs: 50,
  repairProcedures: [
    {
      machineTypes: ["qemu"],
      repairOperations: [
        {
          operation: "unreachable",
          repairSteps: [{ repairCommand: FIX, commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 0 }],
          healthCheckCommand: HEALTHY,
          commandTimeoutSeconds: 30,
          successCommand: null,
          successCommandTimeout: 30,
        },
      ],
    },
  ],
};

const address = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
const add = (i: number) => `mutation { addRepairEntry(operation: "unreachable", machineType: "qemu", address: "${address(i)}") { index } }`;
const rate = (n: number, ms: number) => `${((n * 1000) / ms).toFixed(0)}/s`;

/** Runs `count` calls of `call` with `inFlight` at a time; the milliseconds it took. Any GraphQL error stops the bench. */
async function timed(count: number, call: (i: number) => Promise<void>, inFlight = CONNECTIONS): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < count) await call(next++);
    }),
  );
  return performance.now() - start;
}

async function ok(r: TestKintsugi, query: string): Promise<any> {
  const res = await r.gql(query);
  if (res.errors) throw new Error(`${query}: ${JSON.stringify(res.errors)}`);
  return res.data;
}

async function statuses(r: TestKintsugi): Promise<string[]> {
  return ((await ok(r, "{ searchRepairEntries { status } }")).searchRepairEntries as Array<{ status: string }>).map((e) => e.status);
}

let runs = 0;

/** The API and runner figures of one backend (`overrides` chooses it). */
async function backend(overrides: () => Partial<KintsugiConfig>): Promise<void> {
  const api = await startTestKintsugi({ ...overrides(), repair: INSTANT });
  try {
    // One at a time (each mutation's latency) and CONNECTIONS in flight (a replica's writes take turns).
    const mutationMs = await timed(MUTATIONS, async (i) => void (await ok(api, add(i))), 1);
    const burstMs = await timed(MUTATIONS, async (i) => void (await ok(api, add(MUTATIONS + i))));
    const listMs = await timed(LIST_REQUESTS, async () => void (await ok(api, "{ searchRepairEntries { index address status step stepStatus } }")));
    console.log(`  mutations: ${rate(MUTATIONS, mutationMs)} (addRepairEntry, one at a time), ${rate(MUTATIONS, burstMs)} (${CONNECTIONS} in flight)`);
    console.log(`  list:      ${rate(LIST_REQUESTS, listMs)} (searchRepairEntries over ${(await statuses(api)).length} entries)`);
  } finally {
    await api.dispose();
  }
  const runner = await startTestKintsugi(
    { ...overrides(), repair: INSTANT, runner: { intervalSeconds: 1, healthCheckConcurrency: 50 } },
    { startRunner: true },
  );
  try {
    await ok(runner, "mutation { setRepairQueueEnabled(enabled: false) }");
    // Addresses of their own per backend: the machines' files say which were repaired already.
    const base = (runs++ + 1) * 1_000;
    await timed(RUNNER_ENTRIES, async (i) => void (await ok(runner, add(base + i))), 1);
    const start = performance.now();
    await ok(runner, "mutation { setRepairQueueEnabled(enabled: true) }");
    await until(
      "every entry finished",
      () => statuses(runner),
      (ss) => ss.every((s) => s === "SUCCEEDED" || s === "FAILED"),
      300_000,
    );
    const ms = performance.now() - start;
    const indexes = (await ok(runner, "{ searchRepairEntries { index } }")).searchRepairEntries as Array<{ index: string }>;
    let records = 0;
    // Every record but the entry's `created` one was written by the runner.
    for (const e of indexes) records += (await ok(runner, `{ repairHistory(index: "${e.index}") { sequence } }`)).repairHistory.length - 1;
    const succeeded = (await statuses(runner)).filter((s) => s === "SUCCEEDED").length;
    console.log(
      `  runner:    ${rate(records, ms)} transitions (${records} history records; ${succeeded} of ${RUNNER_ENTRIES} entries succeeded in ${(ms / 1000).toFixed(2)} s)`,
    );
    // A repair that failed here is a finding, not noise: say why, from its history.
    const failed = ((await ok(runner, "{ searchRepairEntries { index status } }")).searchRepairEntries as Array<{ index: string; status: string }>).find(
      (e) => e.status === "FAILED",
    );
    if (failed) {
      const history = (await ok(runner, `{ repairHistory(index: "${failed.index}") { reason detail } }`)).repairHistory as Array<{
        reason: string;
        detail: string | null;
      }>;
      console.log(`  FAILED entry ${failed.index}: ${history.map((h) => h.reason + (h.detail ? ` [${h.detail.slice(0, 200)}]` : "")).join(" -> ")}`);
    }
  } finally {
    await runner.dispose();
  }
}

async function gql(url: string, query: string): Promise<any> {
  const res = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query }) });
  const body = (await res.json()) as { data?: any; errors?: unknown };
  if (body.errors) throw new Error(`${query}: ${JSON.stringify(body.errors)}`);
  return body.data;
}

/** Two `kintsugi serve` replicas on `etcd`; SIGKILLs the leader FAILOVERS times (starting it again after each). */
async function failover(etcd: TestEtcd): Promise<void> {
  const dir = tempDir("kintsugi-bench-store-");
  const config = (name: string) => {
    const path = join(dir.path, `${name}.yaml`);
    writeFileSync(
      path,
      `listen: "127.0.0.1:0"
store: etcd
etcd:
  endpoints: ${JSON.stringify(etcd.endpoints)}
  prefix: "/bench-failover/"
leader_election:
  lease_ttl_seconds: ${LEASE_TTL}
  replica_name: ${name}
runner:
  interval_seconds: 1
repair:
  repair_procedures:
    - machine_types: ["qemu"]
      repair_operations:
        - operation: unreachable
          repair_steps:
            - repair_command: ${JSON.stringify(FIX)}
          health_check_command: ${JSON.stringify(HEALTHY)}
`,
    );
    return path;
  };
  const start = (name: string) => ({ name, process: serveProcess(["--config", config(name)], dir.path) });
  const replicas: Array<{ name: string; process: ServeProcess }> = [start("bench-a"), start("bench-b")];
  const times: number[] = [];
  try {
    for (let round = 0; round < FAILOVERS; round++) {
      const urls = await Promise.all(replicas.map((r) => r.process.url));
      const { leaderAt } = await untilOneLeads(urls, 60_000);
      const survivor = urls[1 - leaderAt] as string;
      const killed = replicas[leaderAt] as { name: string; process: ServeProcess };
      const t0 = performance.now();
      killed.process.child.kill("SIGKILL");
      await killed.process.exited;
      const index = (await gql(survivor, add(10_000 + round))).addRepairEntry.index as string;
      const status = async () => ((await gql(survivor, `{ repairEntry(index: "${index}") { status } }`)).repairEntry as { status: string }).status;
      await until("the survivor takes the entry out of QUEUED", status, (s) => s !== "QUEUED", 60_000);
      times.push(performance.now() - t0);
      replicas[leaderAt] = start(killed.name);
    }
  } finally {
    for (const r of replicas) {
      r.process.child.kill("SIGKILL");
      await r.process.exited;
    }
    dir.remove();
  }
  const s = times.map((t) => `${(t / 1000).toFixed(2)} s`).join(", ");
  console.log(`  failover:  ${s} (SIGKILL of the leader to the first transition by the new one; lease TTL ${LEASE_TTL} s)`);
}

const etcd = await startTestEtcd();
try {
  let prefix = 0;
  console.log("sqlite:");
  await backend(() => ({}));
  console.log("etcd (one member on loopback):");
  await backend(() => ({ store: "etcd", etcd: { ...DEFAULT_ETCD_CONFIG, endpoints: [...etcd.endpoints], prefix: `/bench-${prefix++}/` } }));
  await failover(etcd);
} finally {
  await etcd.stop();
}
