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
import type { HealthCheckConfig } from "../src/domain/health/health-check-config.js";
import { EMPTY_REPAIR_CONFIG, type RepairOperationConfig } from "../src/domain/queue/repair-config.js";
import { startKintsugi } from "../src/main.js";
import { DEFAULT_LIMITS } from "../src/config/limits.js";
import { DEFAULT_CONFIG } from "../src/config/kintsugi-config.js";
import { newToken, sha256Hex } from "../src/auth/tokens.js";
import { tempDir } from "../test/support/temp-dir.js";
import { banner } from "./demo/banner.js";
import { startDataCenter } from "./demo/data-center.js";
import { startDemoClock } from "./demo/demo-clock.js";
import { narrateHolds, type Holds } from "./demo/hold-narration.js";
import { QueueMirror } from "./demo/queue-mirror.js";
import { Scenario } from "./demo/scenario.js";
import { createStory, entryLines, generationLine } from "./demo/story.js";
import { DEMO_TIMINGS, wallTimings } from "./demo/timings.js";
import { DEMO_USAGE, demoOptions, type DemoOptions } from "./demo/options.js";
import { followWaits } from "./demo/wait-narration.js";

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
const databasePath = join(dir.path, "demo.db");
// One clock for the whole simulated world (kintsugi, sabakan, Kubernetes, the story): it waits while the process is
// starved of CPU, so that on a loaded machine the scenario does not race ahead of kintsugi.
const clock = startDemoClock();
const dc = await startDataCenter(dir.path, clock.now);
// Two steps, as a real site would write them: a reboot first (it clears most faults), then a power cycle.
const operation = (name: string): RepairOperationConfig => ({
  operation: name,
  repairSteps: [
    {
      repairCommand: dc.hardware.command("reboot", timings.seconds("rebootCommandSeconds")),
      commandTimeoutSeconds: 30,
      commandRetries: 1,
      commandInterval: 1,
      needDrain: true,
      watchSeconds: timings.seconds("rebootWatchSeconds"),
    },
    {
      repairCommand: dc.hardware.command("repair", timings.seconds("repairCommandSeconds")),
      commandTimeoutSeconds: 30,
      commandRetries: 1,
      commandInterval: 1,
      needDrain: false,
      watchSeconds: timings.seconds("watchSeconds"),
    },
  ],
  healthCheckCommand: dc.hardware.command("health"),
  commandTimeoutSeconds: 10,
  successCommand: null,
  successCommandTimeout: 30,
});
// MachineHealthCheck's rule on the nodes: NotReady for longer than the timeout enqueues the machine, unless 40% of
// the nodes are (a cluster-wide problem is no machine's fault).
const nodeReady: HealthCheckConfig = {
  name: "node-ready",
  selector: { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "Exists" }] },
  unhealthyConditions: [{ type: "Ready", status: "False", timeoutSeconds: timings.seconds("nodeNotReadyTimeoutSeconds") }],
  maxUnhealthy: { kind: "percent", value: 40 },
  unhealthyRange: null,
  operation: "unhealthy",
  machineType: { from: "sabakan" },
  paused: false,
};

const story = createStory((line) => process.stdout.write(`${line}\n`), clock.now, options.scale);
const queue = new QueueMirror();
let holds: Holds = new Map();
let scenario: Scenario | null = null;
let controlPlanes: readonly string[] = [];
const DEMO_TOKEN = newToken();
const kintsugi = await startKintsugi(
  {
    ...DEFAULT_CONFIG,
    listen: { host: "127.0.0.1", port: options.port },
    database: databasePath,
    sabakan: { url: dc.sabakan.url, schedule: timings.sabakanSchedule, timeoutSeconds: 10, maxResponseBytes: 16 << 20 },
    kubernetes: { kubeconfig: dc.kube.kubeconfigPath, timeoutSeconds: 10 },
    repair: {
      ...EMPTY_REPAIR_CONFIG,
      // Above what pacing lets through (one repair per rack of the three that break): pacing is the limit one sees.
      maxConcurrentRepairs: 4,
      repairProcedures: [{ machineTypes: ["IPMI-2.0"], repairOperations: [operation("unhealthy"), operation("unreachable")] }],
      // Slow start per rack: one repair in progress per rack until repairs there succeed.
      pacing: { domains: ["rack"] },
      // A machine repaired twice within the window is held for a person instead of repaired a third time.
      escalation: { maxRepairs: 2, windowSeconds: timings.seconds("escalationWindowSeconds"), operation: null },
    },
    runner: { intervalSeconds: timings.seconds("runnerIntervalSeconds"), healthCheckConcurrency: 32 },
    healthChecks: [nodeReady],
    limits: DEFAULT_LIMITS,
    constraints: {
      maximumRepairQueueEntries: 12,
      maximumUnhealthyMachinesPerRack: RACK_LIMIT,
      waitSecondsToRepairRebooting: 0,
      controlPlaneCount: 3,
      minimumWorkers: 12,
    },
    // As on loopback without an auth section, clients without a token (the browser, the CLI) act as operators; the
    // demo itself sets the cluster template, an admin's change, with a token of its own.
    auth: { anonymous: "operator", tokens: [{ name: "demo", role: "admin", sha256: sha256Hex(DEMO_TOKEN) }], allowedOrigins: [], allowedHosts: [] },
    tls: null,
  },
  {
    logger: pino({ level: options.logLevel }, pino.destination(2)),
    now: clock.now,
    // The story of what kintsugi does, from its own commit and poll hooks.
    onCommitted: (changes) => {
      const finished = queue.apply(changes);
      for (const line of entryLines(changes)) story.tell("kintsugi", line);
      scenario?.committed(finished, changes);
    },
    onClusterGeneration: (g) => {
      story.tell("kintsugi", generationLine(g));
      if (g.cluster) controlPlanes = g.cluster.nodes.filter((n) => n.control_plane).map((n) => n.address);
      scenario?.clusterGenerated(controlPlanes);
    },
    onOutcome: (outcome) => {
      const told = narrateHolds(holds, outcome, {
        rackLimit: RACK_LIMIT,
        cleanupEverySeconds: DEMO_TIMINGS.cleanupEverySeconds,
        rackOf: (serial) => dc.machines.find((m) => m.serial === serial)?.rack,
        entriesOf: (address) => queue.of(address),
      });
      holds = told.holds;
      for (const line of told.lines) story.tell("kintsugi", line);
      for (const s of outcome.skipped) if (s.kind === "escalated") scenario?.incidents.escalated(s.serial);
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

console.log(banner({ url: kintsugi.url, adminToken: DEMO_TOKEN, databasePath, rackLimit: RACK_LIMIT, scale: options.scale }));

scenario = new Scenario({ dc, kintsugiUrl: kintsugi.url, story, timings, rackLimit: RACK_LIMIT, random: Math.random, adminToken: DEMO_TOKEN }, queue);
scenario.clusterGenerated(controlPlanes);
scenario.start();
const stopFollowingWaits = followWaits(
  kintsugi.url,
  (index) => queue.addressOf(Number(index)),
  (line) => story.tell("kintsugi", line),
);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  scenario?.stop();
  await stopFollowingWaits();
  await kintsugi.close();
  await dc.close();
  clock.stop();
  dir.remove();
  console.log("kintsugi demo stopped");
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
if (options.durationSeconds !== null) setTimeout(() => void stop(), options.durationSeconds * 1000);
