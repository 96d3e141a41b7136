// bench/memory: kintsugi's resident memory with 100,000 history rows and 1,000 subscribers (goal: at most 150 MB),
// without Kubernetes and with it (its client library alone is about 60 MB).
// This process seeds a database with 1,000 entries and 100,000 history records (see seed), then starts
// the real `kintsugi serve` on it (the built binary: run `npm run build` first), opens 1,000 graphql-ws
// subscriptions to repairEntryEvents, makes 20 changes that every subscriber receives, reads the whole queue and a
// whole entry's history, and reads the server's resident memory (VmRSS) and its peak (VmHWM) from /proc at each
// stage. Prints figures; asserts nothing. Run: npm run bench:memory
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { openDatabase } from "../src/store/sqlite/database.js";
import { MIGRATIONS } from "../src/store/sqlite/migrations/index.js";
import { openSqliteStore } from "../src/store/sqlite/open-sqlite-store.js";
import { startFakeKubeApi } from "../test/support/fake-kube-api.js";
import { serveProcess } from "../test/support/serve-process.js";
import { tempDir } from "../test/support/temp-dir.js";

const ENTRIES = 1_000;
const HISTORY = 100_000;
const SUBSCRIBERS = 1_000;
const CHANGES = 20;
const NOW = Date.UTC(2026, 10, 22);

/**
 * 1,000 entries that succeeded long ago (a `created` and a `transition` record each, so the runner leaves them be and
 * they stay listed, as finished entries do until deleted, with the finished-repair record the old store wrote), then
 * notes spread over them up to HISTORY records. Written with SQL into a file of the old tables, without an fsync each
 * (the store's driver commits each write durably: 100,000 of them would take minutes), then opened once as the store,
 * which converts it to the key-value table as an upgrade does, so `kintsugi serve` opens a converted file.
 */
async function seed(databasePath: string): Promise<void> {
  const db = openDatabase(databasePath, MIGRATIONS);
  db.pragma("synchronous = OFF");
  const entry = db.prepare(`INSERT INTO repair_entries (idx, address, nodename, serial, machine_type, operation, status, step, step_status, deleted,
      last_transition_time, drain_backoff_count, drain_backoff_expire, created_at, source)
    VALUES (?, ?, '', ?, 'qemu', 'unreachable', 'succeeded', 0, 'waiting', 0, ?, 0, NULL, ?, 'bench')`);
  const record = db.prepare(`INSERT INTO repair_history (entry_index, time, kind, reason, detail, status, step, step_status, deleted, actor)
    VALUES (?, ?, ?, ?, ?, ?, 0, 'waiting', 0, 'bench')`);
  const finished = db.prepare(`INSERT INTO finished_repairs (seq, entry_index, address, machine_type, operation, source, created_at, finished_at, status, proof)
    VALUES (?, ?, ?, 'qemu', 'unreachable', 'bench', ?, ?, 'succeeded', NULL)`);
  const detail = `command: ["/usr/local/bin/power-cycle","10.0.0.1"]\nexit code 1\nstderr: ${"BMC did not answer; retrying. ".repeat(4)}`;
  db.transaction(() => {
    for (let i = 0; i < ENTRIES; i++) {
      const index = i + 1;
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      entry.run(index, address, `s${i}`, NOW, NOW);
      record.run(index, NOW, "created", "seeded", null, "queued");
      const ended = record.run(index, NOW, "transition", "the health check reports the machine healthy", null, "succeeded").lastInsertRowid;
      finished.run(ended, index, address, NOW, NOW);
    }
    for (let n = 2 * ENTRIES; n < HISTORY; n++)
      record.run((n % ENTRIES) + 1, NOW + n, "note", `step 1: repair command failed (attempt ${n})`, detail, "succeeded");
  })();
  db.close();
  const store = await openSqliteStore({ path: databasePath });
  await store.close();
}

const memory = (pid: number): { rss: number; peak: number } => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
};
const mb = (m: { rss: number; peak: number }) => `${m.rss.toFixed(0)} MB resident (peak ${m.peak.toFixed(0)} MB)`;

/** One run: a fresh seeded database, `kintsugi serve` on it (with `kubernetes` as its config section, if any). */
async function run(label: string, kubernetes: string): Promise<void> {
  console.log(`${label}:`);
  const dir = tempDir("kintsugi-bench-memory-");
  const databasePath = join(dir.path, "kintsugi.db");
  await seed(databasePath);
  // The 20 new entries are repaired for real: a step that runs `true`, and a health check that reports healthy.
  writeFileSync(
    join(dir.path, "kintsugi.yaml"),
    `listen: "127.0.0.1:0"
database: ${JSON.stringify(databasePath)}
limits: { max_connections_per_address: ${SUBSCRIBERS} }   # every subscriber connects from 127.0.0.1
${kubernetes}repair:
  repair_procedures:
    - machine_types: ["qemu"]
      repair_operations:
        - operation: unreachable
          repair_steps:
            - repair_command: ["true"]
              watch_seconds: 1
          health_check_command: ["echo", "true"]
`,
  );
  const server = serveProcess(["--config", join(dir.path, "kintsugi.yaml")], dir.path);
  const base = await server.url;
  const pid = server.child.pid as number;
  const url = `${base}/graphql`;
  const gql = async (query: string, variables?: Record<string, unknown>) => {
    const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
    const body = (await res.json()) as { data?: Record<string, unknown>; errors?: Array<{ message: string }> };
    if (body.errors) throw new Error(body.errors[0]?.message);
    return body.data ?? {};
  };
  try {
    console.log(`    started on ${ENTRIES.toLocaleString("en")} entries and ${HISTORY.toLocaleString("en")} history rows: ${mb(memory(pid))}`);
    let received = 0;
    let connected = 0;
    const clients: Client[] = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const client = createClient({ url: url.replace("http", "ws"), webSocketImpl: WebSocket, retryAttempts: 0, on: { connected: () => void connected++ } });
      client.subscribe(
        { query: "subscription { repairEntryEvents { kind entry { index address status step stepStatus } record { reason } } }" },
        { next: () => void received++, error: () => {}, complete: () => {} },
      );
      clients.push(client);
    }
    while (connected < SUBSCRIBERS) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 500));
    console.log(`    ${SUBSCRIBERS} subscribers connected: ${mb(memory(pid))}`);
    for (let i = 0; i < CHANGES; i++)
      await gql(`mutation($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
        a: `10.200.0.${i + 1}`,
      });
    while (received < SUBSCRIBERS * CHANGES) await new Promise((r) => setTimeout(r, 20));
    const queue = (await gql(`{ searchRepairEntries { index address status } }`))["searchRepairEntries"] as unknown[];
    const history = (await gql(`{ repairHistory(index: "1") { sequence reason detail } }`))["repairHistory"] as unknown[];
    console.log(
      `    ${CHANGES} changes to every subscriber (${received.toLocaleString("en")} events), the queue (${queue.length} entries) and one entry's history (${history.length} records) read: ${mb(memory(pid))}`,
    );
    await Promise.all(clients.map((c) => c.dispose()));
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
    dir.remove();
  }
}

await run("without Kubernetes (the client library is not loaded)", "");
const kube = await startFakeKubeApi();
try {
  await run("with Kubernetes (the test API server; @kubernetes/client-node loaded)", `kubernetes:\n  kubeconfig: ${JSON.stringify(kube.kubeconfigPath)}\n`);
} finally {
  await kube.close();
}
