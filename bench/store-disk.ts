// bench/store-disk: the SQLite store's disk, run against a build tree (default this one; another, e.g. a worktree of
// an older commit, to compare): an old-format file with ROWS history rows (bench/history-seed.ts) converted by that
// tree's first start (openSqliteStore, in a child process, the directory's size sampled every 20 ms meanwhile):
// its time and peak disk against the old file; then the converted file's bytes per history row (the file, and the
// history keys and values alone); then CYCLES churn cycles of 100 repairs through the store (added, four
// transitions, dequeued) on a new file: the file's size after them.
// Prints figures; asserts nothing. Run: node --import tsx bench/store-disk.ts [TREE] [ROWS]
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { tempDir } from "../test/support/temp-dir.js";
import { RECORDS_PER_REPAIR, seedHistory } from "./history-seed.js";
import { openDatabase } from "../src/store/kv/sqlite/database.js";

const TREE = resolve(process.argv[2] ?? ".");
const ROWS = Number(process.argv[3] ?? 1_000_000);
const CYCLES = 8;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const dirBytes = (dir: string) => readdirSync(dir).reduce((sum, name) => sum + (existsSync(join(dir, name)) ? statSync(join(dir, name)).size : 0), 0);

/** Runs `code` (an ES module body; TREE's src is `S`) in a child with tsx; resolves when it exits 0. */
function child(code: string, sample?: () => void): Promise<number> {
  const start = performance.now();
  // The SQLite store's folder moved (kv/sqlite/): an older tree has it in store/sqlite/.
  const sqlite = existsSync(join(TREE, "src/store/kv/sqlite/open-sqlite-store.ts")) ? "/store/kv/sqlite" : "/store/sqlite";
  const body = `const S = ${JSON.stringify(pathToFileURL(join(TREE, "src")).href)}; const OPEN = S + ${JSON.stringify(`${sqlite}/open-sqlite-store.ts`)};\n${code}`;
  const p = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", body], { cwd: TREE, stdio: ["ignore", "inherit", "inherit"] });
  const timer = sample ? setInterval(sample, 20) : null;
  return new Promise((done, fail) =>
    p.on("exit", (code) => {
      if (timer) clearInterval(timer);
      if (code === 0) done(performance.now() - start);
      else fail(new Error(`the child exited ${code}`));
    }),
  );
}

const seeds = tempDir("kintsugi-bench-disk-seed-");
const dir = tempDir("kintsugi-bench-disk-");
try {
  const seed = join(seeds.path, "old.db");
  const db = openDatabase(seed);
  seedHistory(db, ROWS, Date.UTC(2026, 0, 1));
  db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'repair_entries'").run(ROWS / RECORDS_PER_REPAIR);
  db.close();
  const file = join(dir.path, "kintsugi.db");
  copyFileSync(seed, file);
  const old = statSync(file).size;
  let peak = old;
  const ms = await child(
    `const { openSqliteStore } = await import(OPEN);
     const store = await openSqliteStore({ path: ${JSON.stringify(file)} });
     await store.close();`,
    () => (peak = Math.max(peak, dirBytes(dir.path))),
  );
  const size = statSync(file).size;
  const read = new Database(file, { readonly: true });
  const history = read
    .prepare("SELECT COUNT(*) AS n, SUM(LENGTH(key) + LENGTH(value)) AS bytes FROM kv WHERE key >= '/kintsugi/history/' AND key < '/kintsugi/history0'")
    .get() as { n: number; bytes: number };
  const freePages = read.pragma("freelist_count", { simple: true }) as number;
  const pageSize = read.pragma("page_size", { simple: true }) as number;
  read.close();
  console.log(
    `upgrade of an old file with ${ROWS.toLocaleString("en")} history rows (${mb(old)}): ${(ms / 1000).toFixed(1)} s (child process, start to exit), ` +
      `peak disk ${mb(peak)} (${(peak / old).toFixed(1)}x the old file); the file after it: ${mb(size)} (${mb(freePages * pageSize)} of it free pages)`,
  );
  console.log(
    `bytes per history row: ${((size - freePages * pageSize) / history.n).toFixed(0)} (the file's used pages / ${history.n.toLocaleString("en")} rows), ` +
      `${(history.bytes / history.n).toFixed(0)} (key and value alone)`,
  );

  const churn = join(dir.path, "churn.db");
  const sizes: string[] = [];
  await child(`
    const { statSync } = await import("node:fs");
    const { openSqliteStore } = await import(OPEN);
    const store = await openSqliteStore({ path: ${JSON.stringify(churn)} });
    const T0 = 1_700_000_000_000;
    let at = T0;
    const sizes = [];
    for (let cycle = 0; cycle < ${CYCLES}; cycle++) {
      const added = [];
      for (let i = 0; i < 100; i++) {
        const entry = { address: "10.3." + cycle + "." + i, nodename: "node-" + cycle + "-" + i, serial: "serial-" + cycle + "-" + i, machineType: "qemu",
          operation: "unreachable", status: "queued", step: 0, stepStatus: "waiting", deleted: false, lastTransitionTime: null, drainBackoffCount: 0,
          drainBackoffExpire: null, createdAt: at, source: "sabakan" };
        added.push((await store.entries.add(entry, "added by sabakan's machine state", at++, "sabakan")).entry.index);
      }
      const steps = [["processing", 1, "waiting"], ["processing", 1, "draining"], ["processing", 1, "watching"], ["succeeded", 1, "watching"]];
      for (const [status, step, stepStatus] of steps)
        for (const index of added)
          await store.entries.change(index, (e) => e && [{ entry: { ...e, status, step, stepStatus, lastTransitionTime: at }, kind: "transition",
            reason: "step " + step + ": " + stepStatus + " (a reason about as long as the runner's)" }], at++, "kintsugi");
      for (const index of added) await store.entries.dequeue(index, () => "the repair ended", at++, "kintsugi");
      sizes.push(statSync(${JSON.stringify(churn)}).size);
    }
    await store.close();
    console.log("churn: the file after each of ${CYCLES} cycles of 100 repairs: " + sizes.map((s) => (s / 1024).toFixed(0) + " KB").join(", ") +
      "; after the last: " + (statSync(${JSON.stringify(churn)}).size / 1024).toFixed(0) + " KB");
  `);
  void sizes;
} finally {
  dir.remove();
  seeds.remove();
}
