import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { allowancesOf, domainValueOf, type FinishedOutcome, type PacingDomain, type PacingInput } from "../../../src/domain/pacing/repair-pacing.js";
import type { RepairObservation } from "../../../src/domain/queue/repair-plan.js";
import { CONFIG, SEC, T, entry, machineHold, obs, snapshot, withHolds } from "../queue/repair-decision-support.js";
import { seededRandom } from "../../support/seeded-random.js";

const TYPES = ["a", "b"];
const DOMAIN_SETS: PacingDomain[][] = [["rack"], ["machine_type"], ["rack", "machine_type"]];
const STORMS = 1000;
const config = { ...CONFIG, repairProcedures: [{ ...CONFIG.repairProcedures[0]!, machineTypes: TYPES }] };

interface World {
  readonly pick: (n: number) => number;
  readonly chance: (p: number) => boolean;
  readonly max: number;
  readonly racks: Map<string, number>;
  readonly domains: readonly PacingDomain[];
  readonly finished: FinishedOutcome[];
  entries: RepairEntry[];
  /** The machines on hold this pass: their processing entries stay in progress, their queued ones wait. */
  held: Set<string>;
  nextIndex: number;
  now: number;
}

function newWorld(seed: number): World {
  const random = seededRandom(seed);
  const pick = (n: number) => Math.floor(random() * n);
  const racks = new Map<string, number>();
  // Machine 0..15; about one in five has no rack known to sabakan.
  for (let m = 0; m < 16; m++) if (random() >= 0.2) racks.set(`10.1.0.${m}`, pick(4));
  return {
    pick,
    chance: (p) => random() < p,
    max: 1 + pick(6),
    racks,
    domains: DOMAIN_SETS[pick(3)]!,
    finished: [],
    entries: [],
    held: new Set(),
    nextIndex: 1,
    now: T,
  };
}

const pacingOf = (w: World): PacingInput => ({ domains: w.domains, racks: w.racks, finished: w.finished });
const keysOf = (w: World, e: RepairEntry) =>
  w.domains.flatMap((d) => {
    const value = domainValueOf(d, e.machineType, w.racks.get(e.address) ?? null);
    return value === null ? [] : [`${d}=${value}`];
  });

function countByDomain(w: World, entries: readonly RepairEntry[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const e of entries) for (const k of keysOf(w, e)) counts.set(k, (counts.get(k) ?? 0) + 1);
  return counts;
}

/** One pass of a simulated runner: processing entries run their command (no action); queued ones may start. */
function pass(w: World): number[] {
  const observations: Record<number, Partial<RepairObservation>> = {};
  for (const e of w.entries) observations[e.index] = obs({ job: e.status === "processing" ? "repair-command" : "none" });
  const snap = { ...withHolds(snapshot(w.entries, observations, { config, max: w.max }), ...[...w.held].map((a) => machineHold(a))), pacing: pacingOf(w) };
  const plan = decideRepairActions(snap, w.now, () => 0);
  const allowances = new Map(allowancesOf(pacingOf(w), w.entries, w.max).map((a) => [`${a.domain}=${a.value}`, a.allowance]));
  for (const [key, allowance] of allowances) assert.ok(allowance >= 1 && allowance <= Math.max(1, w.max), `${key}: allowance ${allowance}`);

  const before = countByDomain(
    w,
    w.entries.filter((e) => e.status === "processing"),
  );
  const started: number[] = [];
  for (const action of plan.actions) {
    const last = action.transitions.at(-1)?.after;
    if (action.entry.status !== "queued" || !last || last.status !== "processing") continue;
    started.push(action.entry.index);
    assert.ok(!w.held.has(action.entry.address), `entry ${action.entry.index} started on a held machine`);
    w.entries = w.entries.map((e) => (e.index === last.index ? last : e));
  }
  const after = countByDomain(
    w,
    w.entries.filter((e) => e.status === "processing"),
  );
  for (const [key, count] of after) {
    const allowance = allowances.get(key) ?? 1;
    // Entries already processing go on when an allowance drops; no entry starts beyond it.
    assert.ok(count <= Math.max(allowance, before.get(key) ?? 0), `${key}: ${count} in progress, allowance ${allowance}, ${before.get(key) ?? 0} before`);
  }
  assert.ok(w.entries.filter((e) => e.status === "processing").length <= w.max);
  return started;
}

/** Processing entries finish at random (succeeded or failed) and leave the queue; their outcome joins the history. */
function finishSome(w: World, p: number, failRate: number): void {
  const done = w.entries.filter((e) => e.status === "processing" && w.chance(p));
  for (const e of done) {
    w.finished.push({
      entryIndex: e.index,
      machineType: e.machineType,
      rack: w.racks.get(e.address) ?? null,
      status: w.chance(failRate) ? "failed" : "succeeded",
      time: w.now,
    });
  }
  w.entries = w.entries.filter((e) => !done.includes(e));
}

function enqueue(w: World, machine: number): RepairEntry {
  const e = entry(w.nextIndex++, {
    address: `10.1.0.${machine}`,
    machineType: TYPES[machine % 2]!,
    createdAt: w.now,
    lastTransitionTime: w.now - (w.now % SEC),
  });
  w.entries = [...w.entries, e];
  return e;
}

describe("pacing under seeded random failure storms", () => {
  it(`${STORMS} storms with holds: no domain goes past its allowance, no allowance reaches 0, an isolated failure starts at once`, () => {
    for (let seed = 1; seed <= STORMS; seed++) {
      const w = newWorld(seed);
      const failRate = w.pick(3) / 3;
      const passes = 5 + w.pick(20);
      for (let i = 0; i < passes; i++) {
        w.now += 10 * SEC;
        finishSome(w, 0.4, failRate);
        const arrivals = w.pick(5);
        for (let k = 0; k < arrivals; k++) enqueue(w, w.pick(16));
        w.held = new Set(Array.from({ length: 16 }, (_, m) => `10.1.0.${m}`).filter(() => w.chance(0.15)));
        pass(w);
      }
      // The storm and the holds pass: every entry finishes, then one machine fails alone.
      w.held = new Set();
      while (w.entries.length > 0) {
        w.now += 10 * SEC;
        finishSome(w, 1, failRate);
        pass(w);
      }
      const alone = enqueue(w, w.pick(16));
      w.now += 10 * SEC;
      assert.deepEqual(pass(w), [alone.index], `seed ${seed}: an isolated failure did not start`);
    }
  });
});
