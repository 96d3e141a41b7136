// npm run demo: kintsugi in a simulated data center. The test sabakan server plays sabakan (4 racks of 6 machines),
// the test Kubernetes API server plays the cluster, harmless scripts "repair" machines by setting them healthy in
// sabakan, and a chaos loop breaks machines over time — including one rack-wide failure that the per-rack limit
// stops. Options: --port N (default 10180; 0 = any free port), --fast (everything 5x faster, for tests),
// --duration S (stop after S seconds).
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pino } from "pino";
import { EMPTY_REPAIR_CONFIG, type RepairOperationConfig } from "../src/domain/repair-config.js";
import { startKintsugi } from "../src/main.js";
import { DEFAULT_LIMITS } from "../src/config/limits.js";
import { DEFAULT_CONFIG } from "../src/config/kintsugi-config.js";
import { newToken, sha256Hex } from "../src/auth/tokens.js";
import { startFakeKubeApi } from "../test/support/fake-kube-api.js";
import { startFakeSabakan } from "../test/support/fake-sabakan.js";
import { tempDir } from "../test/support/temp-dir.js";

const args = process.argv.slice(2);
const option = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const fast = args.includes("--fast");
const scale = fast ? 0.2 : 1;
const port = Number(option("--port") ?? 10180);
const duration = option("--duration");
const RACKS = 4;
const PER_RACK = 6;

const dir = tempDir("kintsugi-demo-");
const sabakan = await startFakeSabakan();
const kube = await startFakeKubeApi();
const address = (rack: number, i: number) => `10.69.${rack}.${i + 1}`;
for (let rack = 0; rack < RACKS; rack++) {
  for (let i = 0; i < PER_RACK; i++) {
    const serial = `r${rack}m${i + 1}`;
    sabakan.addMachine({ serial, rack, indexInRack: i + 1, ipv4: [address(rack, i)], bmcType: "IPMI-2.0", state: "HEALTHY" });
    kube.addNode({ name: `node-${serial}`, internalIP: address(rack, i) });
    kube.addPod({ namespace: "web", name: `frontend-${serial}`, nodeName: `node-${serial}`, controllerKind: "ReplicaSet" });
    kube.addPod({ namespace: "kube-system", name: `agent-${serial}`, nodeName: `node-${serial}`, controllerKind: "DaemonSet" });
  }
}

const machineScript = fileURLToPath(new URL("./demo/machine.mjs", import.meta.url));
const command = (action: string) => [process.execPath, machineScript, sabakan.url, action];
const operation = (name: string): RepairOperationConfig => ({
  operation: name,
  repairSteps: [{ repairCommand: command("repair"), commandTimeoutSeconds: 30, commandRetries: 1, commandInterval: 2, needDrain: true, watchSeconds: Math.ceil(20 * scale) }],
  healthCheckCommand: command("health"),
  commandTimeoutSeconds: 10,
  successCommand: null,
  successCommandTimeout: 30,
});

const DEMO_TOKEN = newToken();
const kintsugi = await startKintsugi(
  {
    ...DEFAULT_CONFIG,
    listen: { host: "127.0.0.1", port },
    database: join(dir.path, "demo.db"),
    sabakan: { url: sabakan.url, schedule: fast ? "*/2 * * * * *" : "*/10 * * * * *", timeoutSeconds: 10, maxResponseBytes: 16 << 20 },
    kubernetes: { kubeconfig: kube.kubeconfigPath, timeoutSeconds: 10 },
    repair: { ...EMPTY_REPAIR_CONFIG, maxConcurrentRepairs: 3, repairProcedures: [{ machineTypes: ["IPMI-2.0"], repairOperations: [operation("unhealthy"), operation("unreachable")] }] },
    runner: { intervalSeconds: 2 * scale, healthCheckConcurrency: 32 },
    healthChecks: [],
    limits: DEFAULT_LIMITS,
    constraints: { maximumRepairQueueEntries: 12, maximumUnhealthyMachinesPerRack: 2, waitSecondsToRepairRebooting: 0, controlPlaneCount: 3, minimumWorkers: 12 },
    // As on loopback without an auth section, clients without a token (the browser, the CLI) act as operators; the
    // demo itself sets the cluster template, an admin's change, with a token of its own.
    auth: { anonymous: "operator", tokens: [{ name: "demo", role: "admin", sha256: sha256Hex(DEMO_TOKEN) }], allowedOrigins: [], allowedHosts: [] },
    tls: null,
  },
  {
    logger: pino({ level: "warn" }),
    // Narrate what kintsugi does, from its own commit and poll hooks.
    onCommitted: (changes) => {
      for (const { entry, record } of changes) {
        if (record.kind === "created" || record.kind === "transition") console.log(`[kintsugi] #${entry.index} ${entry.address}: ${record.reason}`);
      }
    },
    onClusterGeneration: (g) => {
      if (g.cluster) console.log(`[kintsugi] cluster generation ${g.generation}: ${g.changes.join("; ")}`);
      else console.log(g.error ? `[kintsugi] cluster generation failed: ${g.error}` : "[kintsugi] cluster generation works again");
    },
    onOutcome: (outcome) => {
      const held = outcome.skipped.filter((s) => s.reason.startsWith("rack "));
      if (held.length > 0) console.log(`[kintsugi] auto-repair held back ${held.length} machines: ${held[0]?.reason}`);
      if (outcome.shortCircuit) console.log(`[kintsugi] auto-repair enqueued nothing: too many repair requests (${JSON.stringify(outcome.shortCircuit)})`);
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

console.log(`
kintsugi demo: ${RACKS * PER_RACK} simulated machines in ${RACKS} racks, each a Kubernetes node.

  GraphiQL:       ${kintsugi.url}/
  GraphQL:        ${kintsugi.url}/graphql   (sabakan's own API is served there too)
  Watch:          npx kintsugi --server ${kintsugi.url} repair-queue watch
  Metrics:        ${kintsugi.url}/metrics
  Cluster:        npx kintsugi --server ${kintsugi.url} cluster get

Paste this subscription into GraphiQL to see repairs as they happen:

  subscription {
    repairEntryEvents { kind entry { index address nodename status step stepStatus } record { reason } }
  }

Machines will break every few seconds; about a minute in, rack 3 loses power and the per-rack limit
(maximum-unhealthy-machines-per-rack = 2) keeps kintsugi from "repairing" the whole rack. Ctrl-C to stop.
`);

const healthy = () => sabakan.machines().filter((m) => m.state === "HEALTHY" && m.rack !== 3);
// The operator's part: finished entries are deleted from time to time, so that a machine that breaks again can be
// repaired again (an entry for its address, even a finished one, means "recently repaired").
const cleanup = setInterval(() => {
  void fetch(`${kintsugi.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: `mutation { deleteFinishedRepairEntries { index } }` }),
  })
    .then((res) => res.json() as Promise<{ data?: { deleteFinishedRepairEntries: unknown[] } }>)
    .then((body) => {
      const n = body.data?.deleteFinishedRepairEntries.length ?? 0;
      if (n > 0) console.log(`[operator] deleted ${n} finished entr${n === 1 ? "y" : "ies"}`);
    });
}, 30_000 * scale);

let tick = 0;
const chaos = setInterval(() => {
  tick++;
  if (tick === Math.round(60 / (6 * scale)) || (fast && tick === 4)) {
    for (let i = 0; i < PER_RACK; i++) sabakan.setState(`r3m${i + 1}`, "UNREACHABLE");
    console.log(`[chaos] rack 3 lost power: ${PER_RACK} machines UNREACHABLE; watch autoRepairOutcomes: the rack is held back`);
    return;
  }
  const candidates = healthy();
  const victim = candidates[Math.floor(Math.random() * candidates.length)];
  if (!victim) return;
  // Through kintsugi's gateway, as a state-setter controller would: kintsugi reacts at once.
  void fetch(`${kintsugi.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ query: `mutation { setMachineState(serial: "${victim.serial}", state: UNHEALTHY) { state } }` }),
  }).then(() => console.log(`[chaos] ${victim.serial} (${victim.ipv4[0]}) became UNHEALTHY`));
}, 6000 * scale);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  clearInterval(chaos);
  clearInterval(cleanup);
  await kintsugi.close();
  await kube.close();
  await sabakan.close();
  dir.remove();
  console.log("kintsugi demo stopped");
  process.exit(0);
};
process.on("SIGINT", () => void stop());
process.on("SIGTERM", () => void stop());
if (duration) setTimeout(() => void stop(), Number(duration) * 1000);
