import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { recordPut } from "../../src/store/core/poll-record-port.js";
import { encodeValue } from "../../src/store/core/store-values.js";
import { openSqliteKvDriver } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import { SQLITE_KEYS } from "../support/side-store.js";
import { startTestKintsugi, type TestKintsugi } from "../support/kintsugi-server.js";
import { randomPollRecord } from "../support/replay-records.js";
import { until } from "../support/until.js";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { graphqlData, serveProcess } from "../support/serve-process.js";
import { tempDir } from "../support/temp-dir.js";
import { createClient } from "graphql-ws";
import WebSocket from "ws";

// A month of polls froze the server while the replay ran on its event loop; this is enough records for the replay to
// take seconds here. The checks below compare with the whole replay's own time, and a cancelled replay's slot comes
// free only after the cancel crosses the worker and the test's next probe: with 500 polls (a 1.6 s replay) a loaded
// run once saw the slot free 1,647 ms after the socket closed, so the replay is twice that long.
const POLLS = 1_000;
const MACHINES = 400;
const MINUTE = 60_000;

const REPLAY = `query ($since: DateTime!) { simulateAutoRepair(since: $since, constraints: { maximumRepairQueueEntries: 2 }) { pollsReplayed truncated } }`;

async function replay(k: TestKintsugi, since: number, signal?: AbortSignal) {
  const res = await fetch(`${k.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: REPLAY, variables: { since: new Date(since).toISOString() } }),
    ...(signal && { signal }),
  });
  return (await res.json()) as {
    data?: { simulateAutoRepair: { pollsReplayed: number } } | null;
    errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
  };
}

/** How long GET /health takes to answer, in ms. */
async function healthMs(k: TestKintsugi): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${k.url}/health`);
  await res.text();
  return performance.now() - started;
}

/**
 * Writes `count` poll records of `machines` machines each, a minute apart from `start`, into the SQLite file at
 * `path` (made if absent) before a kintsugi opens it: a running one's store is the file's only writer. The keys and
 * values are the store's own (recordPut, and the records head as the store advances it), in one transaction, as the
 * poller would leave them after `count` polls a minute apart.
 */
async function writeRecords(path: string, start: number, count: number, machines: number): Promise<void> {
  const template = randomPollRecord(start, machines);
  const puts = Array.from({ length: count }, (_, i) => recordPut(SQLITE_KEYS, "intake", i + 1, { ...template, time: start + i * MINUTE }));
  const driver = openSqliteKvDriver(path);
  try {
    const head = { key: SQLITE_KEYS.recordsHead, value: encodeValue({ w: "test-records", next: count + 1 }) };
    await driver.txn("write the test's poll records", { compares: [], puts: [...puts, head], deletes: [], reads: [] });
  } finally {
    await driver.close();
  }
}

describe("simulateAutoRepair runs in a worker thread, one at a time, within limits.replay_seconds", () => {
  let k: TestKintsugi;
  let records: ReturnType<typeof tempDir>;
  let start: number;
  let wholeMs: number;

  before(async () => {
    start = Date.now() - (POLLS + 10) * MINUTE;
    records = tempDir();
    const databasePath = join(records.path, "kintsugi.db");
    await writeRecords(databasePath, start, POLLS, MACHINES);
    k = await startTestKintsugi({ limits: { ...DEFAULT_LIMITS, replaySeconds: 600 } }, { databasePath });
    const began = performance.now();
    const whole = await replay(k, start);
    wholeMs = performance.now() - began;
    assert.equal(whole.data?.simulateAutoRepair.pollsReplayed, POLLS, JSON.stringify(whole.errors));
  });
  after(async () => {
    await k.dispose();
    records.remove();
  });

  it("answers /health while a replay of the whole month runs", async () => {
    const running = replay(k, start);
    const latencies: number[] = [];
    let done = false;
    void running.finally(() => (done = true));
    while (!done) latencies.push(await healthMs(k));
    assert.equal((await running).data?.simulateAutoRepair.pollsReplayed, POLLS);
    assert.ok(latencies.length >= 3, `only ${latencies.length} /health answers during a ${Math.round(wholeMs)} ms replay`);
    // On the event loop, /health waited for the whole replay (seconds here).
    assert.ok(Math.max(...latencies) < wholeMs / 3, `/health took up to ${Math.round(Math.max(...latencies))} ms during a ${Math.round(wholeMs)} ms replay`);
  });

  it("refuses a second replay while one runs, saying so, and stops a replay whose client went away", async () => {
    const client = new AbortController();
    const first = replay(k, start, client.signal).catch((err: Error) => err);
    const second = await until(
      "the first replay holds the slot",
      () => replay(k, Date.now() - MINUTE),
      (r) => r.errors !== undefined,
    );
    assert.match(second.errors?.[0]?.message ?? "", /another replay is running; kintsugi runs one at a time/);
    assert.equal(second.errors?.[0]?.extensions?.["limit"], "limits.replay_seconds");
    const goneAt = performance.now();
    client.abort();
    assert.equal(((await first) as Error).name, "AbortError");
    // The slot is free before the replay would have ended. Not much before: a client that goes while the store's
    // records are read frees the slot once the read ends (it is not interrupted), and on a loaded machine that read
    // took 1.7 s of a 2.8 s replay. That the worker itself is terminated, test/graphql/replay-threads.test.ts shows
    // with a worker that never ends.
    await until(
      "a replay is admitted again",
      () => replay(k, Date.now() - MINUTE),
      (r) => r.data?.simulateAutoRepair !== undefined,
    );
    const freedMs = performance.now() - goneAt;
    assert.ok(freedMs < wholeMs, `the slot came free ${Math.round(freedMs)} ms after the client went; the whole replay takes ${Math.round(wholeMs)} ms`);
  });

  it("stops a replay asked over a WebSocket when the socket closes", async () => {
    let connected!: () => void;
    const open = new Promise<void>((resolve) => (connected = resolve));
    const client = createClient({
      url: `${k.url.replace(/^http/, "ws")}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
      lazy: false,
      on: { connected: () => connected() },
    });
    await open;
    const results: unknown[] = [];
    // The probes below take the slot for a moment each: a replay over the socket that met one of them is asked again.
    let second: Awaited<ReturnType<typeof replay>> | undefined;
    for (let attempt = 0; attempt < 5 && second === undefined; attempt++) {
      results.length = 0;
      client.subscribe(
        { query: REPLAY, variables: { since: new Date(start).toISOString() } },
        { next: (r) => void results.push(r), error: (e) => void results.push({ error: e }), complete: () => undefined },
      );
      const probed = await until(
        "the replay over the WebSocket holds the slot or was refused",
        () => replay(k, Date.now() - MINUTE),
        (r) => r.errors !== undefined || results.length > 0,
      );
      if (results.length === 0) second = probed;
    }
    assert.match(second?.errors?.[0]?.message ?? "", /another replay is running/);
    const goneAt = performance.now();
    await client.dispose();
    // Before the replay would have ended (see the HTTP case above).
    await until(
      "a replay is admitted again",
      () => replay(k, Date.now() - MINUTE),
      (r) => r.data?.simulateAutoRepair !== undefined,
    );
    const freedMs = performance.now() - goneAt;
    assert.ok(freedMs < wholeMs, `the slot came free ${Math.round(freedMs)} ms after the socket closed; the whole replay takes ${Math.round(wholeMs)} ms`);
    assert.deepEqual(results, [], "nothing was answered");
  });

  it("answers an error naming limits.replay_seconds when a replay passes its budget, never part of an answer", async () => {
    const budget = Math.max(0.05, wholeMs / 4 / 1000);
    const tight = await k.restart({ limits: { ...DEFAULT_LIMITS, replaySeconds: budget } });
    k = tight;
    const latencies: number[] = [];
    const running = replay(k, start);
    let done = false;
    void running.finally(() => (done = true));
    while (!done) latencies.push(await healthMs(k));
    const answer = await running;
    assert.equal(answer.data ?? null, null);
    assert.match(answer.errors?.[0]?.message ?? "", /did not finish within .* s \(limits\.replay_seconds\) and was stopped; nothing of it is answered/);
    assert.deepEqual([answer.errors?.[0]?.extensions?.["type"], answer.errors?.[0]?.extensions?.["limit"]], ["LIMIT_EXCEEDED", "limits.replay_seconds"]);
    assert.ok(Math.max(...latencies) < wholeMs / 3, `/health took up to ${Math.round(Math.max(...latencies))} ms`);
    // The slot is free again once the worker is gone: a replay is admitted (on a loaded machine even a minute's replay
    // may pass this tight budget, which still shows it ran).
    await until(
      "a replay is admitted again",
      () => replay(k, Date.now() - MINUTE),
      (r) => r.data?.simulateAutoRepair !== undefined || /did not finish within/.test(r.errors?.[0]?.message ?? ""),
    );
  });
});

describe("the built binary runs the replay's worker from dist/ (npm run build first)", () => {
  it("kintsugi serve answers simulateAutoRepair over its records", async () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "kintsugi.yaml"), `listen: "127.0.0.1:0"\ndatabase: ./k.db\nlimits:\n  replay_seconds: 60\n`);
      const start = Date.now() - 30 * MINUTE;
      await writeRecords(join(dir.path, "k.db"), start, 20, 10);
      const server = serveProcess(["--config", "kintsugi.yaml"], dir.path);
      try {
        const url = await server.url;
        const data = await graphqlData<{ simulateAutoRepair: { pollsReplayed: number; truncated: boolean } }>(url, REPLAY, {
          since: new Date(start).toISOString(),
        });
        assert.deepEqual(data.simulateAutoRepair, { pollsReplayed: 20, truncated: false });
      } finally {
        server.child.kill("SIGTERM");
        assert.equal(await server.exited, 0, `stops cleanly on SIGTERM: ${server.stderr()}`);
      }
    } finally {
      dir.remove();
    }
  });
});
