// npm run demo: kintsugi in a simulated data center, for as long as someone watches. The test sabakan server plays
// sabakan (4 racks of 6 machines), the test Kubernetes API server plays the cluster, a shell script plays the
// machines' BMCs, and a scenario breaks machines, cuts a rack's power and gives it back on a 5-minute cycle
// (scripts/demo/scenario.ts, paced by scripts/demo/timings.ts).
// The story goes to stdout, one line per event; kintsugi's own log (JSON, warnings and errors) goes to stderr, so
// that `npm run demo 2>kintsugi.log` keeps the story clean and the log at hand.
// Options: --port N (default 10180; 0 = any free port), --scale X (every interval times X; default 1), --fast
// (--scale 0.2), --duration S (stop after S seconds of wall-clock time), --log-level LEVEL (default warn).
import { join } from "node:path";
import { pino } from "pino";
import { EMPTY_REPAIR_CONFIG, type RepairOperationConfig } from "../src/domain/repair-config.js";
import { startKintsugi } from "../src/main.js";
import { DEFAULT_LIMITS } from "../src/config/limits.js";
import { DEFAULT_CONFIG } from "../src/config/kintsugi-config.js";
import { newToken, sha256Hex } from "../src/auth/tokens.js";
import { tempDir } from "../test/support/temp-dir.js";
import { startDataCenter, PER_RACK, POWER_CUT_RACK, RACKS } from "./demo/data-center.js";
import { narrateHolds, type Holds } from "./demo/hold-narration.js";
import { QueueMirror } from "./demo/queue-mirror.js";
import { Scenario } from "./demo/scenario.js";
import { createStory, entryLines, generationLine } from "./demo/story.js";
import { DEMO_TIMINGS, wallTimings } from "./demo/timings.js";
import { DEMO_USAGE, demoOptions, type DemoOptions } from "./demo/options.js";

if (process.argv.includes("--help") || process.argv.includes("-h")) {
  process.stdout.write(`${DEMO_USAGE}\n`);
  process.exit(0);
}
let options: DemoOptions;
try {
  options = demoOptions(process.argv.slice(2));
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n${DEMO_USAGE}\n`);
  process.exit(2);
}
const timings = wallTimings(options.scale);
const RACK_LIMIT = 2;

const dir = tempDir("kintsugi-demo-");
const dc = await startDataCenter(dir.path);
const operation = (name: string): RepairOperationConfig => ({
  operation: name,
  repairSteps: [
    {
      repairCommand: dc.hardware.command("repair", timings.seconds("repairCommandSeconds")),
      commandTimeoutSeconds: 30,
      commandRetries: 1,
      commandInterval: 1,
      needDrain: true,
      watchSeconds: timings.seconds("watchSeconds"),
    },
  ],
  healthCheckCommand: dc.hardware.command("health"),
  commandTimeoutSeconds: 10,
  successCommand: null,
  successCommandTimeout: 30,
});

const story = createStory((line) => process.stdout.write(`${line}\n`), Date.now, options.scale);
const queue = new QueueMirror();
let holds: Holds = new Map();
let scenario: Scenario | null = null;
const DEMO_TOKEN = newToken();
const kintsugi = await startKintsugi(
  {
    ...DEFAULT_CONFIG,
    listen: { host: "127.0.0.1", port: options.port },
    database: join(dir.path, "demo.db"),
    sabakan: { url: dc.sabakan.url, schedule: timings.sabakanSchedule, timeoutSeconds: 10, maxResponseBytes: 16 << 20 },
    kubernetes: { kubeconfig: dc.kube.kubeconfigPath, timeoutSeconds: 10 },
    repair: { ...EMPTY_REPAIR_CONFIG, maxConcurrentRepairs: 3, repairProcedures: [{ machineTypes: ["IPMI-2.0"], repairOperations: [operation("unhealthy"), operation("unreachable")] }] },
    runner: { intervalSeconds: timings.seconds("runnerIntervalSeconds"), healthCheckConcurrency: 32 },
    healthChecks: [],
    limits: DEFAULT_LIMITS,
    constraints: { maximumRepairQueueEntries: 12, maximumUnhealthyMachinesPerRack: RACK_LIMIT, waitSecondsToRepairRebooting: 0, controlPlaneCount: 3, minimumWorkers: 12 },
    // As on loopback without an auth section, clients without a token (the browser, the CLI) act as operators; the
    // demo itself sets the cluster template, an admin's change, with a token of its own.
    auth: { anonymous: "operator", tokens: [{ name: "demo", role: "admin", sha256: sha256Hex(DEMO_TOKEN) }], allowedOrigins: [], allowedHosts: [] },
    tls: null,
  },
  {
    logger: pino({ level: options.logLevel }, pino.destination(2)),
    // The story of what kintsugi does, from its own commit and poll hooks.
    onCommitted: (changes) => {
      const finished = queue.apply(changes);
      for (const line of entryLines(changes)) story.tell("kintsugi", line);
      scenario?.committed(finished);
    },
    onClusterGeneration: (g) => story.tell("kintsugi", generationLine(g)),
    onOutcome: (outcome) => {
      const told = narrateHolds(holds, outcome, {
        rackLimit: RACK_LIMIT,
        cleanupEverySeconds: DEMO_TIMINGS.cleanupEverySeconds,
        rackOf: (serial) => dc.machines.find((m) => m.serial === serial)?.rack,
        entriesOf: (address) => queue.of(address),
      });
      holds = told.holds;
      for (const line of told.lines) story.tell("kintsugi", line);
    },
  },
);

// The operator's first step: a cluster template. kintsugi generates cluster.yml from it and sabakan's machines.
const template = `name: demo
nodes:
- user: cybozu
  control_plane: true
- user: cybozu
  control_plane: false
service_subnet: 10.68.0.0/16
`;
const templateSet = await fetch(`${kintsugi.url}/graphql`, {
  method: "POST",
  headers: { "content-type": "application/json", authorization: `Bearer ${DEMO_TOKEN}` },
  body: JSON.stringify({ query: "mutation ($t: String!) { setClusterTemplate(template: $t) { name } }", variables: { t: template } }),
});
if (!templateSet.ok) throw new Error(`setting the cluster template failed: HTTP ${templateSet.status} ${await templateSet.text()}`);

const T = DEMO_TIMINGS;
console.log(`
kintsugi demo: ${RACKS * PER_RACK} simulated machines in ${RACKS} racks, each a Kubernetes node.

  GraphiQL:       ${kintsugi.url}/
  GraphQL:        ${kintsugi.url}/graphql   (sabakan's own API is served there too)
  Watch:          npx kintsugi --server ${kintsugi.url} repair-queue watch
  Poll outcomes:  npx kintsugi --server ${kintsugi.url} auto-repair outcomes
  Metrics:        ${kintsugi.url}/metrics
  Cluster:        npx kintsugi --server ${kintsugi.url} cluster get

Paste this subscription into GraphiQL to see repairs as they happen:

  subscription {
    repairEntryEvents { kind entry { index address nodename status step stepStatus } record { reason } }
  }

Every ${T.cycleSeconds / 60} minutes, for as long as it runs:
  - a machine breaks every ${T.breakEverySeconds} s or so, and kintsugi drains and repairs it (a repaired machine
    stays healthy for at least ${T.coolDownSeconds} s; the operator deletes finished entries every ${T.cleanupEverySeconds} s);
  - at ${T.powerCutAtSeconds} s, rack ${POWER_CUT_RACK} loses power for ${T.powerOutageSeconds} s: maximum-unhealthy-machines-per-rack = ${RACK_LIMIT}
    keeps kintsugi from "repairing" the whole rack until its power is back;
  - at ${T.flapAtSeconds} s, a machine breaks again right after its repair: kintsugi leaves it alone as recently
    repaired until its finished entry is deleted, then repairs it again.
Times are the scenario's clock${options.scale === 1 ? "" : ` (running ${Number((1 / options.scale).toFixed(2))}x the wall clock)`}. The story is on stdout; kintsugi's own log on stderr. Ctrl-C to stop.
`);

scenario = new Scenario({ dc, kintsugiUrl: kintsugi.url, story, timings, rackLimit: RACK_LIMIT, random: Math.random }, queue);
scenario.start();

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  scenario?.stop();
  await kintsugi.close();
  await dc.close();
  dir.remove();
  console.log("kintsugi demo stopped");
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
if (options.durationSeconds !== null) setTimeout(() => void stop(), options.durationSeconds * 1000);
