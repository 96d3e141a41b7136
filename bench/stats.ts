// bench/stats: repairStats latency over HTTP (the real server on a real SQLite file) with 100,000 and 1,000,000
// history rows: 10 records per repair, the newest 10,000 repairs finished and kept (KEPT_FINISHED_REPAIRS), one
// finished every minute. Two queries each: the worst case (a range holding every kept repair, so the read meets its
// 100,000-record bound) and a day (1,440 repairs), ungrouped and grouped by machine type and operation.
// Prints figures; asserts nothing. Run: npm run bench:stats
import { join } from "node:path";
import { openDatabase } from "../src/store/sqlite/database.js";
import { startTestKintsugi } from "../test/support/kintsugi-server.js";
import { tempDir } from "../test/support/temp-dir.js";

const RECORDS_PER_REPAIR = 10;
const KEPT = 10_000;
const RUNS = 10;
const MIN = 60_000;
const T0 = Date.UTC(2026, 0, 1);

/** Writes `rows` history rows (rows / 10 repairs, one a minute from T0) and the newest 10,000 finished records. */
function seed(path: string, rows: number): number {
  const db = openDatabase(path);
  const history = db.prepare(`INSERT INTO repair_history (entry_index, time, kind, reason, detail, status, step, step_status, deleted, actor)
    VALUES (?, ?, 'transition', 'step 1: repair command exited 0, watching', NULL, ?, ?, ?, 0, 'kintsugi')`);
  const finished = db.prepare(`INSERT INTO finished_repairs (seq, entry_index, address, machine_type, operation, source, created_at, finished_at, status, proof)
    VALUES (?, ?, ?, ?, ?, 'sabakan', ?, ?, ?, NULL)`);
  const repairs = rows / RECORDS_PER_REPAIR;
  db.transaction(() => {
    for (let e = 1; e <= repairs; e++) {
      const created = T0 + e * MIN;
      for (let k = 0; k < RECORDS_PER_REPAIR; k++) {
        const last = k === RECORDS_PER_REPAIR - 1;
        history.run(e, created + k * MIN, k === 0 ? "queued" : last ? "succeeded" : "processing", Math.max(0, (k - 1) >> 1), k % 2 === 1 ? "draining" : "watching");
      }
      if (e > repairs - KEPT) {
        finished.run(e * RECORDS_PER_REPAIR, e, `10.${(e >> 16) & 255}.${(e >> 8) & 255}.${e & 255}`, ["qemu", "dell", "hpe"][e % 3], e % 7 === 0 ? "unreachable" : "unhealthy", created, created + RECORDS_PER_REPAIR * MIN, e % 11 === 0 ? "failed" : "succeeded");
      }
    }
  })();
  db.close();
  return T0 + (repairs + RECORDS_PER_REPAIR + 1) * MIN;
}

const QUERY = `query($s: DateTime!, $u: DateTime!, $g: [RepairStatsDimension!]) { repairStats(since: $s, until: $u, groupBy: $g) {
  machineType operation entries successRate timeToRepair { p50Seconds p90Seconds maxSeconds } drainingSeconds stepsNeededP50 withHistory } }`;

for (const rows of [100_000, 1_000_000]) {
  const dir = tempDir("kintsugi-bench-stats-");
  const databasePath = join(dir.path, "kintsugi.db");
  const end = seed(databasePath, rows);
  const k = await startTestKintsugi({}, { databasePath, now: () => end });
  try {
    for (const [label, since] of [["every kept repair", end - 60 * 86_400_000], ["one day", end - 86_400_000]] as const) {
      for (const groupBy of [[], ["MACHINE_TYPE", "OPERATION"]]) {
        const times: number[] = [];
        let read = 0;
        for (let i = 0; i < RUNS; i++) {
          const start = performance.now();
          const res = await k.gql(QUERY, { s: new Date(since).toISOString(), u: new Date(end).toISOString(), g: groupBy });
          times.push(performance.now() - start);
          if (res.errors) throw new Error(JSON.stringify(res.errors));
          read = (res.data?.["repairStats"] as Array<{ withHistory: number }>).reduce((n, g) => n + g.withHistory, 0);
        }
        times.sort((a, b) => a - b);
        const by = groupBy.length === 0 ? "ungrouped" : "by machine type, operation";
        console.log(`${rows.toLocaleString("en")} history rows, ${label} (${read} histories read), ${by}: p50 ${times[RUNS >> 1]!.toFixed(0)} ms, max ${times[RUNS - 1]!.toFixed(0)} ms over ${RUNS} queries`);
      }
    }
  } finally {
    await k.dispose();
  }
}
