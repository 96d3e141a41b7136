// npm run demo: kintsugi in a simulated data center, for as long as someone watches. The test sabakan server plays
// sabakan (4 racks of 6 machines), the test Kubernetes API server plays the cluster, a shell script plays the
// machines' BMCs, and a scenario breaks machines, cuts a rack's power and gives it back on a 5-minute cycle
// (scripts/demo/scenario.ts, paced by scripts/demo/timings.ts).
// The story goes to stdout, one line per event; kintsugi's own log (JSON, warnings and errors) goes to stderr, so
// that `npm run demo 2>kintsugi.log` keeps the story clean and the log at hand.
// Options: --port N (default 10180; 0 = any free port), --scale X (every interval times X; default 1), --fast
// (--scale 0.2), --duration S (stop after S seconds of wall-clock time), --log-level LEVEL (default warn).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { pino } from "pino";
import { startKintsugi, type RunningKintsugi } from "../src/main.js";
import { newToken, sha256Hex } from "../src/auth/tokens.js";
import { ListenError } from "../src/wiring/listen-address.js";
import { tempDir } from "../test/support/temp-dir.js";
import { banner } from "./demo/banner.js";
import { startDataCenter, type DataCenter } from "./demo/data-center.js";
import { demoConfig } from "./demo/demo-config.js";
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
let dc: DataCenter | null = null;
// Whatever ends the process (a stop, a start that fails, an error nobody expected), the demo's folders go with it:
// its own, and the kubeconfig folder of its Kubernetes API.
process.on("exit", () => {
  dir.remove();
  if (dc) rmSync(dc.kube.tempDir, { recursive: true, force: true });
});
const databasePath = join(dir.path, "demo.db");
// One clock for the whole simulated world (kintsugi, sabakan, Kubernetes, the story): it waits while the process is
// starved of CPU, so that on a loaded machine the scenario does not race ahead of kintsugi.
const clock = startDemoClock();

const story = createStory((line) => process.stdout.write(`${line}\n`), clock.now, options.scale);
const queue = new QueueMirror();
let holds: Holds = new Map();
let kintsugi: RunningKintsugi | null = null;
let scenario: Scenario | null = null;
let stopFollowingWaits: (() => Promise<void>) | null = null;
let controlPlanes: readonly string[] = [];
const DEMO_TOKEN = newToken();

let stopping = false;
/** Stops what has started, in the reverse order, and exits with `code` (the folder goes on exit). */
const stop = async (code = 0, why: string | null = null) => {
  if (stopping) return;
  stopping = true;
  scenario?.stop();
  await stopFollowingWaits?.();
  await kintsugi?.close();
  await dc?.close();
  clock.stop();
  if (why !== null) process.stderr.write(`npm run demo: ${why}\n`);
  else console.log("kintsugi demo stopped");
  process.exit(code);
};
// In before anything starts: a Ctrl-C while the demo starts stops it as cleanly as later.
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());

/** Why the demo could not start, in words that say what to do. */
function startFailure(err: unknown): string {
  if (err instanceof ListenError && err.code === "EADDRINUSE") {
    return (
      `127.0.0.1:${options.port} is already in use (another demo, a kintsugi, or another program): stop it, or run the ` +
      `demo on another port: npm run demo -- --port ${options.port === 65535 ? 10181 : options.port + 1} (--port 0 takes any free port)`
    );
  }
  return `cannot start: ${(err as Error).message}`;
}

try {
  dc = await startDataCenter(dir.path, clock.now);
  const world = dc;
  kintsugi = await startKintsugi(
    demoConfig(world, timings, { port: options.port, databasePath, rackLimit: RACK_LIMIT, adminTokenSha256: sha256Hex(DEMO_TOKEN) }),
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
          rackOf: (serial) => world.machines.find((m) => m.serial === serial)?.rack,
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
} catch (err) {
  await stop(1, startFailure(err));
}
// A Ctrl-C during the start is stopping the demo already: nothing more begins.
if (!stopping && kintsugi && dc) {
  console.log(banner({ url: kintsugi.url, adminToken: DEMO_TOKEN, databasePath, rackLimit: RACK_LIMIT, scale: options.scale }));
  scenario = new Scenario({ dc, kintsugiUrl: kintsugi.url, story, timings, rackLimit: RACK_LIMIT, random: Math.random, adminToken: DEMO_TOKEN }, queue);
  scenario.clusterGenerated(controlPlanes);
  scenario.start();
  stopFollowingWaits = followWaits(
    kintsugi.url,
    (index) => queue.addressOf(Number(index)),
    (line) => story.tell("kintsugi", line),
  );
  if (options.durationSeconds !== null) setTimeout(() => void stop(), options.durationSeconds * 1000);
}
