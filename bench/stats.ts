// bench/stats: repairStats latency over HTTP (the real server on a real SQLite file) with 100,000 and 1,000,000
// history rows: 10 records per repair, the newest 10,000 repairs finished and kept (KEPT_FINISHED_REPAIRS), one
// finished every minute. Two ranges: the widest (every kept repair: its histories are 100,000 records) and one day
// (1,440 repairs), each ungrouped and grouped by machine type and operation. For each: the first query on a freshly
// started server (its summaries not kept yet: the background warm-up has just begun) and, once every kept repair is
// summarized, the p50/max of the next queries (warm). In-process: the cold read alone, and how long the whole
// background warm-up takes. Next to them, the API's usual latency: bench/api's 100-entry searchRepairEntries and
// machineHolds, on the same server. Last, the status page's first render with 10,000 machines in 350 racks
// (bench/status-render.ts). Prints figures; asserts nothing. Run: npm run bench:stats (it builds first: the status
// page is bundled at build time).
import { join } from "node:path";
import { repairStats } from "../src/domain/stats/repair-stats.js";
import { RepairSummaryKeeper } from "../src/runner/repair-summary-keeper.js";
import { RepairSummaries } from "../src/runner/repair-summaries.js";
import { openDatabase } from "../src/store/kv/sqlite/database.js";
import { openSqliteStore } from "../src/store/kv/sqlite/open-sqlite-store.js";
import { startTestKintsugi, type TestKintsugi } from "../test/support/kintsugi-server.js";
import { tempDir } from "../test/support/temp-dir.js";
import { KEPT, seedHistory } from "./history-seed.js";
import { SEARCH_REPAIR_ENTRIES } from "./api-queries.js";
import { measureStatusFirstRender, statusRenderLine } from "./status-render.js";

const RUNS = 10;
const USUAL_RUNS = 50;
const QUEUE_ENTRIES = 100;
const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 1);

/** Writes `rows` history rows and the newest finished records into a new database at `path` (see seedHistory). */
function seed(path: string, rows: number): number {
  const db = openDatabase(path);
  try {
    return seedHistory(db, rows, T0);
  } finally {
    db.close();
  }
}

const QUERY = `query($s: DateTime!, $u: DateTime!, $g: [RepairStatsDimension!]) { repairStats(since: $s, until: $u, groupBy: $g) {
  machineType operation entries successRate timeToRepair { p50Seconds p90Seconds maxSeconds } drainingSeconds stepsNeededP50 withHistory } }`;

const ms = (v: number) => `${v.toFixed(v < 10 ? 1 : 0)} ms`;
const p50 = (sorted: readonly number[]) => sorted[sorted.length >> 1]!;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

/** Sorted times of `runs` sequential calls. */
async function times(runs: number, run: () => Promise<unknown>): Promise<number[]> {
  const all: number[] = [];
  for (let i = 0; i < runs; i++) all.push(await timed(run));
  return all.sort((a, b) => a - b);
}

async function gqlOk(k: TestKintsugi, query: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await k.gql(query, variables);
  if (res.errors) throw new Error(JSON.stringify(res.errors));
  return res.data as Record<string, unknown>;
}

/** In-process, without HTTP: the cold read and statistics of each range, and the whole background warm-up. */
async function inProcess(path: string, ranges: ReadonlyArray<readonly [string, number]>, end: number): Promise<void> {
  const store = await openSqliteStore({ path });
  try {
    for (const [label, since] of ranges) {
      const summaries = new RepairSummaries(store.entries, store.finished);
      let read = 0;
      const cold = await timed(async () => (read = repairStats(await summaries.read(since, end), [], new Map()).reduce((n, g) => n + g.withHistory, 0)));
      console.log(`  in-process, ${label} (${read} histories): cold read and statistics ${ms(cold)}`);
    }
    const keeper = new RepairSummaryKeeper(store, (err) => console.log(`  the summary keeper failed: ${String(err)}`));
    const kept = await timed(async () => {
      keeper.start();
      await keeper.idle();
    });
    await keeper.stop();
    const stored = store.finished.list().filter((r) => store.finished.summaryOf(r.sequence) !== undefined).length;
    console.log(
      `  in-process: the leader's keeper stored ${stored.toLocaleString("en")} summaries in ${ms(kept)} (once, after an upgrade; batches of 500, a turn of the event loop between)`,
    );
    const after = new RepairSummaries(store.entries, store.finished);
    const warm = await timed(() => after.read(end - 60 * DAY, end));
    console.log(`  in-process: then a fresh replica's widest query: ${ms(warm)}`);
  } finally {
    await store.close();
  }
}

for (const rows of [100_000, 1_000_000]) {
  const dir = tempDir("kintsugi-bench-stats-");
  const databasePath = join(dir.path, "kintsugi.db");
  const end = seed(databasePath, rows);
  const ranges = [
    ["the widest range (every kept repair)", end - 60 * DAY],
    ["one day", end - DAY],
  ] as const;
  console.log(`${rows.toLocaleString("en")} history rows (${KEPT.toLocaleString("en")} kept finished repairs):`);
  await inProcess(databasePath, ranges, end);
  try {
    let usual = 0;
    const k = await startTestKintsugi({}, { databasePath, now: () => end });
    try {
      for (let i = 0; i < QUEUE_ENTRIES; i++)
        await gqlOk(k, `mutation($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
          a: `10.255.0.${i + 1}`,
        });
      for (const [name, query] of [
        [`${QUEUE_ENTRIES}-entry searchRepairEntries`, SEARCH_REPAIR_ENTRIES],
        ["machineHolds", "{ machineHolds { address reason } }"],
      ] as const) {
        const all = await times(USUAL_RUNS, () => gqlOk(k, query));
        usual = Math.max(usual, p50(all));
        console.log(`  usual API latency, ${name}: p50 ${ms(p50(all))}, max ${ms(all.at(-1)!)} over ${USUAL_RUNS}`);
      }
    } finally {
      await k.dispose();
    }
    for (const [label, since] of ranges) {
      for (const groupBy of [[], ["MACHINE_TYPE", "OPERATION"]]) {
        const k = await startTestKintsugi({}, { databasePath, now: () => end });
        try {
          const variables = { s: new Date(since).toISOString(), u: new Date(end).toISOString(), g: groupBy };
          let read = 0;
          const first = await timed(
            async () => (read = ((await gqlOk(k, QUERY, variables))["repairStats"] as Array<{ withHistory: number }>).reduce((n, g) => n + g.withHistory, 0)),
          );
          // Every kept repair summarized (the warm-up may still be under way): what every later query meets.
          await gqlOk(k, QUERY, { ...variables, s: new Date(ranges[0][1]).toISOString() });
          const warm = await times(RUNS, () => gqlOk(k, QUERY, variables));
          const by = groupBy.length === 0 ? "ungrouped" : "by machine type, operation";
          console.log(
            `  repairStats, ${label} (${read} histories), ${by}: first query after start ${ms(first)}; warm p50 ${ms(p50(warm))} (${(p50(warm) / usual).toFixed(1)}x the usual), max ${ms(warm.at(-1)!)} over ${RUNS}`,
          );
        } finally {
          await k.dispose();
        }
      }
    }
  } finally {
    dir.remove();
  }
}
console.log(statusRenderLine(await measureStatusFirstRender(5, (line) => console.log(line))));
