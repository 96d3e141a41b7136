// bench/replay: the what-if replay's repair schedule (advanceSchedule), which starts simulated repairs under
// max_concurrent_repairs and pacing: 10,000 repairs enqueued at once and run to the end, without pacing (10 at a
// time), paced by rack (350 racks, 10 at a time) and by rack and machine type (2,000 repairs, 1,000 at a time, the
// pacing-held scan's worst case here). Prints the median of each and the scheduling steps it weighed; asserts
// nothing. Run: npm run bench:replay
import type { PacingDomain } from "../src/domain/pacing/repair-pacing.js";
import { advanceSchedule, emptySchedule, enqueueScheduled } from "../src/domain/replay/replay-repair-schedule.js";

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
