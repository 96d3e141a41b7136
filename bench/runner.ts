// bench/runner: how fast the repair runner moves entries, next to what SQLite alone commits on this machine.
//   (a) 1,000 entries, instant commands, max_concurrent_repairs 50: transitions per second until all succeed,
//       printed next to the raw rate of single-row synchronous=FULL commits measured in the same run;
//   (b) 20 entries whose health check takes 1 s: the time of one pass (concurrent checks: about 1 s, not 20 s).
// Prints figures; asserts nothing. Run: npm run bench:runner
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { ProcessCommandRunner } from "../src/adapters/command-runner.js";
import { DEFAULT_RUNNER } from "../src/config/kintsugi-config.js";
import { createRepairEntry } from "../src/domain/queue/repair-entry.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../src/domain/queue/repair-config.js";
import { RepairRunner } from "../src/runner/repair-runner.js";
import { openDatabase } from "../src/store/kv/sqlite/database.js";
import { openSqliteStore } from "../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../src/store/store-port.js";
import { wakesRunner } from "../src/wiring/workers.js";
import { tempDir } from "../test/support/temp-dir.js";

const log = pino({ level: "silent" });
const runnerLog = { debug: () => {}, info: () => {}, warn: () => {}, error: (m: string, f?: object) => log.error(f ?? {}, m) };

function rawCommitRate(dir: string, rows: number): number {
  const db = openDatabase(join(dir, "raw.db"));
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  const insert = db.prepare("INSERT INTO t (v) VALUES (?)");
  const tx = db.transaction((v: string) => insert.run(v));
  const start = performance.now();
  for (let i = 0; i < rows; i++) tx(`row ${i}`);
  const seconds = (performance.now() - start) / 1000;
  db.close();
  return rows / seconds;
}

async function runnerWith(dir: string, name: string, repair: RepairConfig, concurrency: number) {
  const path = join(dir, `${name}.db`);
  const store = await openSqliteStore({ path });
  const runner = new RepairRunner({
    entries: store.entries,
    settings: store.settings,
    repair,
    commands: new ProcessCommandRunner(),
    nodes: null,
    generatedControlPlanes: () => [],
    now: Date.now,
    random: Math.random,
    log: runnerLog,
    intervalMs: 1000,
    healthCheckConcurrency: concurrency,
  });
  // Woken as kintsugi wires it.
  store.onCommit((commit) => {
    if (wakesRunner(commit)) runner.wake();
  });
  return { store, runner, close: () => store.close() };
}

/** How many history records the entries `indexes` have, read through the store (the history outlives the entries). */
async function historyRecords(store: KintsugiStore, indexes: readonly number[]): Promise<number> {
  let records = 0;
  for (const index of indexes) records += (await store.entries.history(index)).length;
  return records;
}

const unfinished = (store: KintsugiStore) => store.entries.list().filter((e) => e.status !== "succeeded" && e.status !== "failed").length;

const operation = (health: string[], repair: string[]) => ({
  operation: "op",
  healthCheckCommand: health,
  commandTimeoutSeconds: 30,
  successCommand: null,
  successCommandTimeout: 30,
  repairSteps: [{ repairCommand: repair, commandTimeoutSeconds: 30, commandRetries: 0, commandInterval: 0, needDrain: false, watchSeconds: 60 }],
});

async function throughput(dir: string): Promise<void> {
  const script = join(dir, "m.sh");
  writeFileSync(script, `#!/bin/sh\ncase $1 in health) [ -f "${dir}/h-$2" ] && echo true || echo false ;; fix) : > "${dir}/h-$2" ;; esac\n`);
  const repair: RepairConfig = {
    ...EMPTY_REPAIR_CONFIG,
    maxConcurrentRepairs: 50,
    repairProcedures: [{ machineTypes: ["m"], repairOperations: [operation(["sh", script, "health"], ["sh", script, "fix"])] }],
  };
  const { store, runner, close } = await runnerWith(dir, "a", repair, DEFAULT_RUNNER.healthCheckConcurrency);
  const now = Date.now();
  const indexes: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const added = await store.entries.add(
      createRepairEntry({ address: `10.${i >> 8}.${i & 255}.1`, machineType: "m", operation: "op", serial: null, source: "bench" }, now),
      "bench",
      now,
      "bench",
    );
    indexes.push(added.entry.index);
  }
  const before = await historyRecords(store, indexes);
  const start = performance.now();
  runner.start();
  while (unfinished(store) > 0) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const seconds = (performance.now() - start) / 1000;
  await runner.stop();
  const records = (await historyRecords(store, indexes)) - before;
  await close();
  const raw = rawCommitRate(dir, 5000);
  console.log(`(a) 1,000 entries, instant commands, max_concurrent_repairs 50: all succeeded in ${seconds.toFixed(1)} s, ${runner.passCount} passes`);
  console.log(
    `    ${records} history records = ${(records / seconds).toFixed(0)} transitions/s; raw SQLite single-row synchronous=FULL commits: ${raw.toFixed(0)}/s`,
  );
}

async function slowHealthChecks(dir: string): Promise<void> {
  const repair: RepairConfig = {
    ...EMPTY_REPAIR_CONFIG,
    maxConcurrentRepairs: 1,
    repairProcedures: [{ machineTypes: ["m"], repairOperations: [operation(["sh", "-c", "sleep 1; echo false", "check"], ["true"])] }],
  };
  // Not started until the entries are in: a stopped runner does not start again (its pass loop is closed).
  const { store, runner, close } = await runnerWith(dir, "b", repair, DEFAULT_RUNNER.healthCheckConcurrency);
  const now = Date.now();
  for (let i = 0; i < 20; i++)
    await store.entries.add(
      createRepairEntry({ address: `10.1.0.${i + 1}`, machineType: "m", operation: "op", serial: null, source: "bench" }, now),
      "bench",
      now,
      "bench",
    );
  // Disabled, so the pass is health checks and a decision, and no repair command muddies the figure.
  await store.settings.setRepairQueueEnabled(false);
  const start = performance.now();
  runner.start();
  while (runner.passCount < 1) await new Promise((resolve) => setTimeout(resolve, 10));
  const seconds = (performance.now() - start) / 1000;
  await runner.stop();
  await close();
  console.log(
    `(b) 20 entries whose health check takes 1 s: one pass took ${seconds.toFixed(2)} s (serial, as in CKE: about 20 s; health_check_concurrency ${DEFAULT_RUNNER.healthCheckConcurrency})`,
  );
}

const dir = tempDir("kintsugi-bench-");
try {
  await throughput(dir.path);
  await slowHealthChecks(dir.path);
} finally {
  dir.remove();
}
