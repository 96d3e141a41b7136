// bench/replay: the what-if replay's repair schedule (advanceSchedule), which starts simulated repairs under
// max_concurrent_repairs and pacing: 10,000 repairs enqueued at once and run to the end, without pacing (10 at a
// time), paced by rack (350 racks, 10 at a time) and by rack and machine type (2,000 repairs, 1,000 at a time, the
// pacing-held scan's worst case here). Prints the median of each and the scheduling steps it weighed; then a health
// check's remediation record at size (below). Asserts nothing. Run: npm run bench:replay
import type { PacingDomain } from "../src/domain/pacing/repair-pacing.js";
import { advanceSchedule, emptySchedule, enqueueScheduled } from "../src/domain/replay/replay-repair-schedule.js";
import { replayAutoRepair } from "../src/domain/replay/auto-repair-replay.js";
import type { RemediationRecord } from "../src/domain/replay/remediation-record.js";
import { encodePollRecord } from "../src/store/poll-record-schema.js";
import { CHECK_REPAIR, WORKERS_CHECK } from "../test/domain/health/health-check-support.js";

const RUNS = 9;
const cases: Array<{ label: string; repairs: number; max: number; domains: PacingDomain[] }> = [
  { label: "10,000 repairs, 10 at a time, no pacing", repairs: 10_000, max: 10, domains: [] },
  { label: "10,000 repairs, 10 at a time, paced by rack (350 racks)", repairs: 10_000, max: 10, domains: ["rack"] },
  { label: "2,000 repairs, 1,000 at a time, paced by rack and machine type", repairs: 2_000, max: 1_000, domains: ["rack", "machine_type"] },
];

for (const c of cases) {
  let schedule = emptySchedule(0);
  for (let i = 0; i < c.repairs; i++)
    schedule = enqueueScheduled(schedule, { address: `10.0.${i >> 8}.${i & 255}`, machineType: `type-${i % 5}`, rack: i % 350, enqueuedAt: 0 });
  const times: number[] = [];
  let steps = 0;
  for (let run = 0; run < RUNS; run++) {
    const start = performance.now();
    const result = advanceSchedule(schedule, Number.MAX_SAFE_INTEGER, [], { repairSeconds: 3600, maxConcurrentRepairs: c.max, pacingDomains: c.domains });
    times.push(performance.now() - start);
    if (result.finished.length !== c.repairs) throw new Error(`${c.label}: ${result.finished.length} of ${c.repairs} finished`);
    steps = result.steps;
  }
  times.sort((a, b) => a - b);
  console.log(
    `${c.label}: median ${times[RUNS >> 1]!.toFixed(1)} ms (min ${times[0]!.toFixed(1)}, max ${times[RUNS - 1]!.toFixed(1)}), ${steps.toLocaleString("en")} steps`,
  );
}

// A health check's remediation record at a data center's size, with and without the racks a record keeps when the
// per-rack limit is on (closed gates too): its stored bytes (deflated, as the store keeps it) and the replay of one
// such record with its gate opened (maxUnhealthy 100%), which weighs the rack limit over the recorded racks.
const RACK_SIZE = 30;
for (const unhealthy of [RACK_SIZE, 1_000, 10_000]) {
  const nodes = Array.from({ length: unhealthy }, (_, i) => `node-${i}`);
  const addresses = nodes.map((_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
  const bare: RemediationRecord = {
    time: 0,
    check: WORKERS_CHECK.name,
    gate: { open: false, reason: `${unhealthy} unhealthy targets, more than maxUnhealthy` },
    targets: 10_000,
    pending: 0,
    unhealthy: { node: nodes, address: addresses, addressProblem: nodes.map(() => null), machineType: nodes.map(() => "IPMI-2.0") },
    queue: [],
    held: [],
    maximumRepairQueueEntries: 10_000,
    enqueued: [],
    shortCircuited: false,
  };
  const racked: RemediationRecord = {
    ...bare,
    unhealthy: { ...bare.unhealthy, rack: nodes.map((_, i) => Math.floor(i / RACK_SIZE)) },
    rackLimit: RACK_SIZE - 1,
  };
  const limits = {
    constraints: {},
    repairSeconds: 3600,
    healthChecks: new Map([[WORKERS_CHECK.name, { maxUnhealthy: { kind: "percent", value: 100 } as const }]]),
  };
  const config = { checks: new Map([[WORKERS_CHECK.name, WORKERS_CHECK]]), repair: CHECK_REPAIR };
  const row = (record: RemediationRecord) => {
    const times: number[] = [];
    let enqueued = 0;
    for (let run = 0; run < RUNS; run++) {
      const start = performance.now();
      enqueued = replayAutoRepair({ polls: [], remediations: [record] }, limits, config).enqueuedSimulated;
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    return `${encodePollRecord(record).length.toLocaleString("en")} bytes, replayed with the gate opened in ${times[RUNS >> 1]!.toFixed(1)} ms (${enqueued} enqueued)`;
  };
  console.log(`remediation record, ${unhealthy.toLocaleString("en")} unhealthy of 10,000: without racks ${row(bare)}; with racks ${row(racked)}`);
}
