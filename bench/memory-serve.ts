// One `kintsugi serve` of bench/memory: how long it takes to answer, its memory at each stage, the first repairStats,
// and (unless only the start is measured) 1,000 graphql-ws subscribers that each receive 20 changes.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { serveProcess } from "../test/support/serve-process.js";
import { mb, resident, type Resident } from "./memory-etcd.js";
import { connectSubscribers } from "./subscriber-clients.js";

const SUBSCRIBERS = 1_000;
const CHANGES = 20;

/** What one serve run measured (seconds and MB); the stages it did not reach are absent. */
export interface ServeFigures {
  readonly healthSeconds: number;
  readonly firstAnswerSeconds: number;
  readonly started?: Resident;
  readonly statsSeconds?: number;
  readonly afterStats?: Resident;
  readonly subscribers?: Resident;
  /** The stages that failed, and how. */
  readonly failures: readonly string[];
}

export interface ServeRun {
  readonly dir: string;
  /** The config's store part: `database: FILE` or the etcd section. */
  readonly store: string;
  /** The config's `kubernetes` section, or "". */
  readonly kubernetes: string;
  /** The range repairStats is asked for (the whole seeded history) and an entry whose history is read. */
  readonly since: number;
  readonly until: number;
  readonly listedEntry: number;
  /** Distinct per run on one store, so that every run's new entries are new machines. */
  readonly run: number;
  /** The build's bin/kintsugi.js. */
  readonly bin: string;
  /** Only the start: the first start of an old SQLite file (a conversion may happen in it). */
  readonly startOnly: boolean;
}

const STATS = `query($s: DateTime!, $u: DateTime!) { repairStats(since: $s, until: $u) {
  machineType operation entries successRate timeToRepair { p50Seconds p90Seconds maxSeconds } withHistory } }`;

/** An error with its cause (fetch's "fetch failed" says why only there: a reset, a closed socket, a timeout). */
const why = (err: unknown) => {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return `${String(err)}${cause ? ` (${cause.code ?? ""} ${cause.message ?? ""})` : ""}`.slice(0, 400);
};
const seconds = (from: number) => (performance.now() - from) / 1000;
const until = async (check: () => boolean | Promise<boolean>, what: string, withinMs = 600_000) => {
  const deadline = Date.now() + withinMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** Starts `kintsugi serve` on `run.store`, measures, stops it; prints each stage as it goes. */
export async function measureServe(run: ServeRun): Promise<ServeFigures> {
  const config = join(run.dir, `serve-${run.run}.yaml`);
  // The new entries are repaired for real: a step that runs `true`, and a health check that reports healthy.
  writeFileSync(
    config,
    `listen: "127.0.0.1:0"
${run.store}${run.kubernetes}repair:
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
  const began = performance.now();
  const server = serveProcess(["--config", config], run.dir, undefined, undefined, run.bin);
  const pid = server.child.pid as number;
  try {
    const base = await server.url;
    await until(async () => (await fetch(`${base}/health`).catch(() => null))?.status === 200, "/health 200");
    const healthSeconds = seconds(began);
    const gql = async (query: string, variables?: Record<string, unknown>) => {
      const res = await fetch(`${base}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ query, variables }),
      });
      const body = (await res.json()) as { data?: Record<string, unknown>; errors?: Array<{ message: string }> };
      if (body.errors) throw new Error(body.errors[0]?.message);
      return body.data ?? {};
    };
    const queue = (await gql(`{ searchRepairEntries { index address status } }`))["searchRepairEntries"] as unknown[];
    const firstAnswerSeconds = seconds(began);
    const started = resident(pid);
    console.log(
      `    started: /health 200 after ${healthSeconds.toFixed(1)} s, the first GraphQL answer (the queue, ${queue.length} entries) after ${firstAnswerSeconds.toFixed(1)} s: ${mb(started)}`,
    );
    if (run.startOnly) return { healthSeconds, firstAnswerSeconds, started, failures: [] };

    // A stage that fails (etcd past its timeout, say) is a figure too: it is printed and the next stage runs.
    let statsSeconds: number | undefined;
    let afterStats: Resident | undefined;
    const failures: string[] = [];
    const statsBegan = performance.now();
    try {
      const stats = (await gql(STATS, { s: new Date(run.since).toISOString(), u: new Date(run.until).toISOString() }))["repairStats"] as Array<{
        withHistory: number;
        entries: number;
      }>;
      statsSeconds = seconds(statsBegan);
      afterStats = resident(pid);
      const repairs = stats.reduce((n, g) => n + g.entries, 0);
      const histories = stats.reduce((n, g) => n + g.withHistory, 0);
      console.log(
        `    the first repairStats over the whole history (${repairs} repairs, ${histories} with history) in ${statsSeconds.toFixed(2)} s: ${mb(afterStats)}`,
      );
    } catch (err) {
      failures.push(`repairStats failed after ${seconds(statsBegan).toFixed(1)} s`);
      console.log(`    the first repairStats failed after ${seconds(statsBegan).toFixed(1)} s: ${why(err)}: ${mb(resident(pid))}`);
    }
    try {
      const subscribers = await subscribersStage(base, pid, run, gql);
      return { healthSeconds, firstAnswerSeconds, started, statsSeconds, afterStats, subscribers, failures };
    } catch (err) {
      failures.push("the subscribers stage failed");
      console.log(`    the subscribers stage failed: ${why(err)}: ${mb(resident(pid))}`);
      return { healthSeconds, firstAnswerSeconds, started, statsSeconds, afterStats, failures };
    }
  } finally {
    server.child.kill("SIGTERM");
    await server.exited;
  }
}

type Gql = (query: string, variables?: Record<string, unknown>) => Promise<Record<string, unknown>>;

/** 1,000 subscribers to repairEntryEvents, 20 new entries each of them hears of, the queue and one history read. */
async function subscribersStage(base: string, pid: number, run: ServeRun, gql: Gql): Promise<Resident> {
  let received = 0;
  const connections = await connectSubscribers({
    url: `${base.replace("http", "ws")}/graphql`,
    count: SUBSCRIBERS,
    query: "subscription { repairEntryEvents { kind entry { index address status step stepStatus } record { reason } } }",
    onEvent: () => void received++,
  });
  try {
    await new Promise((r) => setTimeout(r, 500));
    const closes = [...connections.closes].map(([code, times]) => `${code} x${times}`).join(", ") || "none";
    console.log(
      `    ${SUBSCRIBERS} subscribers connected from ${connections.addresses} addresses in ${connections.seconds.toFixed(1)} s (${connections.retries} retries; closes: ${closes}): ${mb(resident(pid))}`,
    );
    for (let i = 0; i < CHANGES; i++)
      await gql(`mutation($a: IPAddress!) { addRepairEntry(operation: "unreachable", machineType: "qemu", address: $a) { index } }`, {
        a: `10.${200 + run.run}.0.${i + 1}`,
      });
    await until(() => received >= SUBSCRIBERS * CHANGES, "every subscriber's events");
    const listed = (await gql(`{ searchRepairEntries { index address status } }`))["searchRepairEntries"] as unknown[];
    const history = (await gql(`query($i: ID!) { repairHistory(index: $i) { sequence reason detail } }`, { i: String(run.listedEntry) }))[
      "repairHistory"
    ] as unknown[];
    const subscribers = resident(pid);
    console.log(
      `    ${CHANGES} changes to every subscriber (${received.toLocaleString("en")} events), the queue (${listed.length} entries) and one entry's history (${history.length} records) read: ${mb(subscribers)}`,
    );
    return subscribers;
  } finally {
    await connections.dispose();
  }
}
