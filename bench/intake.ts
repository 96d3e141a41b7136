// bench/intake: sabakan polls of a fleet of 10,000 machines in 350 racks, 300 of them unhealthy, against the test
// sabakan server, each next to a bare fetch + JSON.parse of the same answer in the same run:
//   (a) the default variables: sabakan answers with the 300 unhealthy machines; the first poll enqueues them, later
//       ones find them recently repaired;
//   (b) variables that select the whole fleet (the largest answer an operator's query can ask for; it
//       short-circuits, as 10,000 candidates exceed the cap).
// Prints figures; asserts nothing. Run: npm run bench:intake
import { join } from "node:path";
import { SabakanClient, sabakanEndpoint } from "../src/adapters/sabakan-client.js";
import { SEARCH_MACHINES } from "../src/adapters/sabakan-documents.js";
import { AutoRepairPoller } from "../src/runner/auto-repair-poller.js";
import { openSqliteStore } from "../src/store/kv/sqlite/open-sqlite-store.js";
import { startFakeSabakan } from "../test/support/fake-sabakan.js";
import { tempDir } from "../test/support/temp-dir.js";

const MACHINES = 10_000;
const RACKS = 350;
const UNHEALTHY = 300;
const RUNS = 7;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const quiet = { debug: () => {}, info: () => {}, warn: () => {}, error: (m: string) => console.error(m) };

const sabakan = await startFakeSabakan();
const dir = tempDir("kintsugi-bench-");
try {
  for (let i = 0; i < MACHINES; i++) {
    const rack = i % RACKS;
    const index = Math.floor(i / RACKS) + 1;
    sabakan.addMachine({
      serial: `s${String(i).padStart(5, "0")}`,
      rack,
      indexInRack: index,
      ipv4: [`10.${Math.floor(rack / 2)}.${(rack % 2) * 128 + index}.1`],
      labels: { datacenter: "dc1", cluster: "stage0" },
      state: i % Math.floor(MACHINES / UNHEALTHY) === 0 && i / Math.floor(MACHINES / UNHEALTHY) < UNHEALTHY ? "UNHEALTHY" : "HEALTHY",
    });
  }
  const store = await openSqliteStore({ path: join(dir.path, "bench.db"), initialConstraints: { maximumRepairQueueEntries: 1000 } });
  const poller = new AutoRepairPoller({
    store,
    nodes: null,
    now: Date.now,
    log: quiet,
    machines: new SabakanClient({ url: sabakan.url, timeoutMs: 60_000, maxResponseBytes: 256 * 1024 * 1024 }),
  });

  const bare = async (variables: unknown) => {
    const start = performance.now();
    const res = await fetch(sabakanEndpoint(sabakan.url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ query: SEARCH_MACHINES, variables }),
    });
    const text = await res.text();
    const body = JSON.parse(text) as { data: { searchMachines: unknown[] } };
    return { ms: performance.now() - start, machines: body.data.searchMachines.length, bytes: text.length };
  };
  const poll = async () => {
    const start = performance.now();
    const outcome = await poller.runNow();
    if (outcome.error) throw new Error(outcome.error);
    return { ms: performance.now() - start, outcome };
  };

  const measure = async (name: string, variables: { having: object | null; notHaving: object | null }) => {
    await store.settings.setAutoRepairVariables(variables);
    await bare(variables); // warm both paths (JIT, connection)
    const first = await poll();
    const bareTimes: number[] = [];
    const pollTimes: number[] = [];
    let answer = { machines: 0, bytes: 0 };
    for (let i = 0; i < RUNS; i++) {
      const b = await bare(variables);
      answer = b;
      bareTimes.push(b.ms);
      pollTimes.push((await poll()).ms);
    }
    const [p, b] = [median(pollTimes), median(bareTimes)];
    console.log(`${name}: answer of ${answer.machines} machines, ${(answer.bytes / 1e6).toFixed(2)} MB`);
    console.log(
      `    first poll: ${first.ms.toFixed(0)} ms, enqueued ${first.outcome.enqueued.length}${first.outcome.shortCircuit ? ` (short-circuit: ${JSON.stringify(first.outcome.shortCircuit)})` : ""}`,
    );
    console.log(`    poll, median of ${RUNS}: ${p.toFixed(1)} ms; bare fetch + JSON.parse: ${b.toFixed(1)} ms; ratio ${(p / b).toFixed(2)}x (goal <= 1.25x)`);
  };

  console.log(`fleet: ${MACHINES} machines in ${RACKS} racks, ${UNHEALTHY} unhealthy`);
  await measure("(a) default variables", { having: { states: ["UNHEALTHY", "UNREACHABLE"] }, notHaving: { roles: ["boot"] } });
  await measure("(b) the whole fleet", { having: null, notHaving: { roles: ["boot"] } });
  await store.close();
} finally {
  await sabakan.close();
  dir.remove();
}
