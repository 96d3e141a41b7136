// bench/generate: cluster generation from sabakan machines for deterministic synthetic fleets of 1,000 and 10,000
// machines (25 machines per rack; roles cs/ss/gpu 6:3:1 by weight; 2% unhealthy), with control-plane-count 5 and
// minimum-workers at 80% of the fleet. Times `generate` and one `update` (a control plane and 1% of the workers turn
// unhealthy: replace control plane) over a few runs, and prints medians and the 10,000 / 1,000 ratios; then what a
// generation costs around the algorithm: rendering cluster.yml, and the stored (gzip'd JSON) size and time.
// Prints figures; asserts nothing. Run: node --import tsx bench/generate.ts
import { gunzipSync, gzipSync } from "node:zlib";
import { clusterYaml } from "../src/domain/cluster/cluster-yaml.js";
import { generate } from "../src/domain/cluster/generate.js";
import { parseTemplate } from "../src/domain/cluster/template.js";
import type { ClusterMachine, GenerationResult } from "../src/domain/cluster/types.js";
import { update } from "../src/domain/cluster/update.js";

const NOW = Date.UTC(2025, 0, 15);
const DAY = 86_400_000;
const RUNS = 7;
const ROLES = ["cs", "cs", "cs", "cs", "cs", "cs", "ss", "ss", "ss", "gpu"];

const parsed = parseTemplate(`
name: bench
service_subnet: 10.68.0.0/16
nodes:
- {user: cybozu, control_plane: true, labels: {cke.cybozu.com/role: cs}}
- {user: cybozu, labels: {cke.cybozu.com/role: cs, cke.cybozu.com/weight: "6"}}
- {user: cybozu, labels: {cke.cybozu.com/role: ss, cke.cybozu.com/weight: "3"}}
- {user: cybozu, labels: {cke.cybozu.com/role: gpu, cke.cybozu.com/weight: "1"}}
`);
if (!parsed.ok) throw new Error(parsed.errors.join("; "));
const template = parsed.template;

function fleet(size: number): ClusterMachine[] {
  return Array.from({ length: size }, (_, i) => {
    const rack = Math.floor(i / 25);
    return {
      serial: `s${String(i).padStart(6, "0")}`,
      rack,
      indexInRack: (i % 25) + 1,
      role: ROLES[(i * 7) % ROLES.length] as string,
      ipv4: [`10.${rack >> 8}.${rack & 255}.${(i % 25) + 1}`],
      registerDate: NOW - ((i * 37) % 1500) * DAY,
      retireDate: NOW + (((i * 53) % 3000) - 800) * DAY,
      state: i % 50 === 7 ? "UNHEALTHY" : "HEALTHY",
      durationSeconds: 3600,
      stateSince: NOW - 3600 * 1000,
      labels: { datacenter: "dc1" },
    };
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
function time(fn: () => GenerationResult): number {
  return timeAny(() => {
    const r = fn();
    if (!r.ok) throw new Error(r.error);
  });
}
function timeAny(fn: () => unknown): number {
  const times: number[] = [];
  for (let i = 0; i <= RUNS; i++) {
    const start = performance.now();
    fn();
    const ms = performance.now() - start;
    if (i > 0) times.push(ms); // the first run warms up
  }
  return median(times);
}

const figures = new Map<
  number,
  {
    generate: number;
    update: number;
    nodes: number;
    changes: number;
    yaml: number;
    yamlBytes: number;
    json: number;
    stored: number;
    store: number;
    load: number;
  }
>();
for (const size of [1_000, 10_000]) {
  const machines = fleet(size);
  const constraints = { controlPlaneCount: 5, minimumWorkers: Math.floor(size * 0.8), maximumWorkers: 0, waitSecondsToReplaceControlPlane: 0 };
  const first = generate(template, machines, constraints, NOW);
  if (!first.ok) throw new Error(first.error);
  const cp = first.cluster.nodes.find((n) => n.control_plane)?.address;
  const workers = new Set(
    first.cluster.nodes
      .filter((n) => !n.control_plane)
      .map((n) => n.address)
      .filter((_, i) => i % 100 === 0),
  );
  const later = machines.map((m) => (m.ipv4[0] === cp || workers.has(m.ipv4[0] as string) ? { ...m, state: "UNHEALTHY" as const } : m));
  const updated = update(first.cluster, { template, machines: later, nodeTaints: new Map(), constraints, now: NOW + 60_000, rebootingNodes: new Set() });
  figures.set(size, {
    generate: time(() => generate(template, machines, constraints, NOW)),
    update: time(() => update(first.cluster, { template, machines: later, nodeTaints: new Map(), constraints, now: NOW + 60_000, rebootingNodes: new Set() })),
    nodes: first.cluster.nodes.length,
    changes: updated.ok ? updated.changes.length : -1,
    yaml: timeAny(() => clusterYaml(first.cluster)),
    yamlBytes: clusterYaml(first.cluster).length,
    json: JSON.stringify(first.cluster).length,
    stored: gzipSync(JSON.stringify(first.cluster)).length,
    store: timeAny(() => gzipSync(JSON.stringify(first.cluster))),
    load: ((blob) => timeAny(() => JSON.parse(gunzipSync(blob).toString("utf8"))))(gzipSync(JSON.stringify(first.cluster))),
  });
}

for (const [size, f] of figures) {
  console.log(
    `${size} machines: ${f.nodes} nodes; generate ${f.generate.toFixed(2)} ms, update ${f.update.toFixed(2)} ms (${f.changes} changes) — median of ${RUNS}`,
  );
  const kb = (n: number) => `${(n / 1024).toFixed(0)} kB`;
  console.log(
    `  cluster.yml ${kb(f.yamlBytes)} rendered in ${f.yaml.toFixed(2)} ms; stored ${kb(f.json)} of JSON as ${kb(f.stored)} gzip'd in ${f.store.toFixed(2)} ms, loaded in ${f.load.toFixed(2)} ms`,
  );
}
const small = figures.get(1_000);
const large = figures.get(10_000);
if (small && large) {
  console.log(`ratio 10,000 / 1,000: generate ${(large.generate / small.generate).toFixed(1)}x, update ${(large.update / small.update).toFixed(1)}x`);
}
