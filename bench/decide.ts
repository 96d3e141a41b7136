// bench/decide: the repair decision (decideRepairActions, one pass of CKE's queue rules) over queues of 1,000 and
// 10,000 entries in a fixed mix (queued, draining, watching with expired and running watches, waiting out a
// drain back-off, healthy, finished, marked for deletion), max_concurrent_repairs 50. Prints the median time of
// each and the 10,000 / 1,000 ratio (the goal: at most 12-15x, i.e. linear). Prints figures; asserts nothing.
// Run: npm run bench:decide
import { decideRepairActions } from "../src/domain/queue/repair-decision.js";
import type { RepairEntry } from "../src/domain/queue/repair-entry.js";
import type { RepairObservation } from "../src/domain/queue/repair-plan.js";
import type { RepairSnapshot } from "../src/domain/queue/repair-plan.js";
import { CONFIG, SEC, T, entry, fixedRandom, machineHold, snapshot, withHolds } from "../test/domain/queue/repair-decision-support.js";

const RUNS = 15;
const MAX_CONCURRENT = 50;

/** Entry i of a queue, by its place in a repeating mix of 20. */
function mixed(i: number): { e: RepairEntry; o: Partial<RepairObservation> } {
  const index = i + 1;
  const node = { nodename: `node-${index}` };
  const base = { address: `10.${(index >> 16) & 255}.${(index >> 8) & 255}.${index & 255}`, ...node };
  switch (i % 20) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
    case 6:
    case 7:
      return { e: entry(index, base), o: node };
    case 8:
    case 9:
      return { e: entry(index, { ...base, status: "processing", stepStatus: "draining", lastTransitionTime: T - 10 * SEC }), o: { ...node, job: "drain" } };
    case 10:
    case 11:
      return { e: entry(index, { ...base, status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC }), o: node };
    case 12:
      return { e: entry(index, { ...base, status: "processing", stepStatus: "watching" }), o: node };
    case 13:
      return { e: entry(index, { ...base, status: "processing", drainBackoffCount: 1, drainBackoffExpire: T + 60 * SEC }), o: node };
    case 14:
      return { e: entry(index, { ...base, status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC }), o: { ...node, healthy: true } };
    case 15:
    case 16:
      return { e: entry(index, { ...base, status: "succeeded" }), o: node };
    case 17:
    case 18:
      return { e: entry(index, { ...base, status: "failed" }), o: node };
    default:
      return { e: entry(index, { ...base, deleted: true }), o: node };
  }
}

function queue(size: number) {
  const mix = Array.from({ length: size }, (_, i) => mixed(i));
  return snapshot(
    mix.map((m) => m.e),
    Object.fromEntries(mix.map((m) => [m.e.index, m.o])),
    { config: CONFIG, max: MAX_CONCURRENT },
  );
}

function median(xs: number[]): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/**
 * The same queue with what the walk weighs besides: every tenth machine held (a held entry mid-repair keeps its slot,
 * and the slot waits name the held ones), pacing by rack and machine type over 1,000 finished repairs (the pass's own
 * failures added to them), and the first three machines control planes, cordoned or not for their entries.
 */
function heldPacedAndPlanes(size: number): RepairSnapshot {
  const base = queue(size);
  const held = withHolds(base, ...base.entries.filter((e) => e.index % 10 === 3).map((e) => machineHold(e.address)));
  const observations = new Map(base.observations);
  for (const e of base.entries.slice(0, 3)) observations.set(e.index, { ...(observations.get(e.index) as RepairObservation), cordoned: e.index === 1 });
  const finished = Array.from({ length: 1_000 }, (_, i) => ({
    entryIndex: size + i + 1,
    machineType: "m",
    rack: i % 40,
    status: i % 7 === 0 ? ("failed" as const) : ("succeeded" as const),
    time: T - (1_000 - i) * SEC,
  }));
  return {
    ...held,
    observations,
    controlPlanes: base.entries.slice(0, 3).map((e, i) => ({ name: `cp${i}`, addresses: [e.address], ready: true, rebooting: false })),
    pacing: { domains: ["rack", "machine_type"], racks: new Map(base.entries.map((e) => [e.address, e.index % 40])), finished },
  };
}

for (const [shape, make] of [
  ["the mix", queue],
  ["with holds, pacing and control planes", heldPacedAndPlanes],
] as const) {
  const times = new Map<number, number>();
  for (const size of [1_000, 10_000]) {
    const snap = make(size);
    for (let i = 0; i < 3; i++) decideRepairActions(snap, T, fixedRandom(0.5)); // warm up
    const runs: number[] = [];
    let actions = 0;
    for (let i = 0; i < RUNS; i++) {
      const start = performance.now();
      actions = decideRepairActions(snap, T, fixedRandom(0.5)).actions.length;
      runs.push(performance.now() - start);
    }
    times.set(size, median(runs));
    console.log(`${shape}, ${size} entries: ${median(runs).toFixed(2)} ms a pass (${actions} actions) — median of ${RUNS}`);
  }
  const small = times.get(1_000) as number;
  const large = times.get(10_000) as number;
  console.log(`${shape}, ratio 10,000 / 1,000: ${(large / small).toFixed(1)}x (goal: at most 12-15x)`);
}
