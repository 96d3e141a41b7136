// bench/store-core: what the store itself costs per runner transition, without the API, the runner or its commands.
// Opens the SQLite store (the core over the SQLite driver) in DIR with KEPT finished repairs (their entries ended
// first and still queued, as on a server that has run a while; 10,000 is as many as the store keeps, so each repair
// that ends then prunes the oldest), then moves ENTRIES new entries through four transitions each, the last ending
// the repair: transitions per second, CPU milliseconds per transition, COMMITs per transition. On /dev/shm (the
// default) an fsync costs nearly nothing, so the figures are the store's own work; on a disk they are fsync-bound.
// Prints figures; asserts nothing. Run: node --import tsx bench/store-core.ts [KEPT] [DIR]
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { RepairEntry } from "../src/domain/queue/repair-entry.js";
import { openSqliteStore } from "../src/store/kv/sqlite/open-sqlite-store.js";
import { ACTOR, newEntry } from "../test/store/conformance/store-harness.js";

const KEPT = Number(process.argv[2] ?? 0);
const DIR = process.argv[3] ?? "/dev/shm";
const ENTRIES = 400;
const T0 = 1_700_000_000_000;
const STEPS: ReadonlyArray<Pick<RepairEntry, "status" | "step" | "stepStatus">> = [
  { status: "processing", step: 1, stepStatus: "waiting" },
  { status: "processing", step: 1, stepStatus: "watching" },
  { status: "processing", step: 2, stepStatus: "watching" },
  { status: "succeeded", step: 2, stepStatus: "watching" },
];

// better-sqlite3 runs each transaction's COMMIT as a prepared statement: counting those counts the fsyncs.
let commits = 0;
const statement = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")) as { run: (...args: unknown[]) => unknown; source: string };
const run = statement.run;
statement.run = function (this: { source: string }, ...args: unknown[]) {
  if (this.source === "COMMIT") commits++;
  return run.apply(this, args);
};

const dir = mkdtempSync(join(DIR, "kintsugi-bench-store-core-"));
try {
  const store = await openSqliteStore({ path: join(dir, "kintsugi.db") });
  const end = (e: RepairEntry | null, at: number) =>
    e && [{ entry: { ...e, status: "succeeded" as const, lastTransitionTime: at }, kind: "transition" as const, reason: "ended" }];
  for (let i = 0; i < KEPT; i++) {
    const added = await store.entries.add(newEntry(`10.2.${i >> 8}.${i & 255}`), "added by an operator", T0, ACTOR);
    await store.entries.change(added.entry.index, (e) => end(e, T0 + i), T0 + i, ACTOR);
  }
  const first = store.entries.list().length;
  for (let i = 0; i < ENTRIES; i++) await store.entries.add(newEntry(`10.1.${i >> 8}.${i & 255}`), "added by an operator", T0, ACTOR);
  commits = 0;
  const cpu = process.cpuUsage();
  const start = performance.now();
  let n = 0;
  for (const step of STEPS) {
    for (const entry of store.entries.list().slice(first)) {
      const at = T0 + KEPT + n++;
      const reason = `step ${step.step}: ${step.stepStatus} (a reason about as long as the runner's)`;
      await store.entries.change(entry.index, (e) => e && [{ entry: { ...e, ...step, lastTransitionTime: at }, kind: "transition", reason }], at, "runner");
    }
  }
  const ms = performance.now() - start;
  const used = process.cpuUsage(cpu);
  console.log(
    `${n} transitions with ${store.finished.list().length} finished repairs kept, in ${DIR}: ${((n * 1000) / ms).toFixed(0)}/s, ` +
      `${((used.user + used.system) / 1000 / n).toFixed(3)} ms CPU per transition, ${(commits / n).toFixed(2)} COMMITs per transition`,
  );
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
