import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import { allowanceOf, allowancesOf, type FinishedOutcome, type PacingInput } from "../../../src/domain/pacing/repair-pacing.js";
import { pacingReport } from "../../../src/domain/pacing/repair-pacing-report.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { CONFIG, SEC, T, entry, fixedRandom, snapshot } from "../queue/repair-decision-support.js";

/** Types "m" and "q" share the procedure of CONFIG. */
const TWO_TYPES = { ...CONFIG, repairProcedures: [{ ...CONFIG.repairProcedures[0]!, machineTypes: ["m", "q"] }] };

const ok = (entryIndex: number, over: Partial<FinishedOutcome> = {}): FinishedOutcome => ({
  entryIndex,
  machineType: "m",
  rack: 3,
  status: "succeeded",
  time: T - (100 - entryIndex) * SEC,
  ...over,
});
const bad = (entryIndex: number, over: Partial<FinishedOutcome> = {}): FinishedOutcome => ok(entryIndex, { status: "failed", ...over });

describe("allowanceOf", () => {
  const cases: Array<{ name: string; finished: FinishedOutcome[]; max: number; want: number; last?: number | null }> = [
    { name: "no finished entry: 1", finished: [], max: 8, want: 1, last: null },
    { name: "one success doubles to 2", finished: [ok(1)], max: 8, want: 2, last: 1 },
    { name: "three successes: 8", finished: [ok(1), ok(2), ok(3)], max: 8, want: 8 },
    { name: "successes stop at max_concurrent_repairs", finished: [ok(1), ok(2), ok(3), ok(4)], max: 5, want: 5 },
    { name: "a failure returns to 1", finished: [ok(1), ok(2), bad(3)], max: 8, want: 1, last: 3 },
    { name: "failures never go below 1", finished: [bad(1), bad(2), bad(3)], max: 8, want: 1 },
    { name: "after a failure successes double again", finished: [ok(1), bad(2), ok(3)], max: 8, want: 2, last: 3 },
    { name: "other racks' outcomes do not count", finished: [ok(1), bad(2, { rack: 4 })], max: 8, want: 2, last: 1 },
    { name: "an outcome with an unknown rack is in no rack", finished: [ok(1), bad(2, { rack: null })], max: 8, want: 2, last: 1 },
    { name: "max_concurrent_repairs 1 keeps it at 1", finished: [ok(1), ok(2)], max: 1, want: 1 },
    { name: "a success whose required proof was given doubles", finished: [ok(1, { proof: "proven" }), ok(2, { proof: "proven" })], max: 8, want: 4, last: 2 },
    { name: "a success whose required proof is missing neither doubles nor resets", finished: [ok(1), ok(2, { proof: "unproven" })], max: 8, want: 2, last: 1 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = allowanceOf("rack", "3", c.finished, c.max);
      assert.equal(got.allowance, c.want);
      if (c.last !== undefined) assert.equal(got.lastChange?.entryIndex ?? null, c.last);
    });
  }

  it("machine_type is paced by type whatever the rack", () => {
    assert.equal(allowanceOf("machine_type", "m", [ok(1, { rack: 1 }), ok(2, { rack: null })], 8).allowance, 4);
  });

  it("allowancesOf lists every domain value seen in the history or the queue", () => {
    const input: PacingInput = {
      domains: ["rack", "machine_type"],
      racks: new Map([["10.0.0.5", 7]]),
      finished: [ok(1), bad(2, { machineType: "qemu", rack: null })],
    };
    const got = allowancesOf(input, [entry(5)], 8).map((a) => `${a.domain}=${a.value}:${a.allowance}`);
    assert.deepEqual(got, ["machine_type=m:2", "machine_type=qemu:1", "rack=3:2", "rack=7:1"]);
  });
});

const started = (plan: ReturnType<typeof decideRepairActions>) =>
  plan.actions.filter((a) => a.effect.kind === "repair-command" || a.effect.kind === "drain").map((a) => a.entry.index);
const racked = (pairs: Array<[number, number]>) => new Map(pairs.map(([index, rack]) => [`10.0.0.${index}`, rack]));
const processing = (index: number, over: Partial<RepairEntry> = {}) =>
  entry(index, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 10 * SEC, ...over });

describe("decideRepairActions with pacing", () => {
  const cases: Array<{ name: string; entries: RepairEntry[]; pacing?: PacingInput; max: number; want: number[]; held?: Record<number, RegExp> }> = [
    { name: "pacing unset: CKE's width", entries: [entry(1), entry(2), entry(3)], max: 3, want: [1, 2, 3] },
    {
      name: "a fresh rack allows one repair",
      entries: [entry(1), entry(2), entry(3)],
      pacing: {
        domains: ["rack"],
        racks: racked([
          [1, 3],
          [2, 3],
          [3, 4],
        ]),
        finished: [],
      },
      max: 3,
      want: [1, 3],
      held: { 2: /^pacing: rack 3 allows 1 repair in progress \(no finished entry yet\)$/ },
    },
    {
      name: "after a success the rack allows two",
      entries: [entry(1), entry(2), entry(3)],
      pacing: {
        domains: ["rack"],
        racks: racked([
          [1, 3],
          [2, 3],
          [3, 3],
        ]),
        finished: [ok(9)],
      },
      max: 5,
      want: [1, 2],
      held: { 3: /^pacing: rack 3 allows 2 repairs in progress \(last success: entry 9 at 2026-11-22T05:58:29\.500Z\)$/ },
    },
    {
      name: "after a failure the rack allows one again, and says which entry failed",
      entries: [entry(1), entry(2)],
      pacing: {
        domains: ["rack"],
        racks: racked([
          [1, 3],
          [2, 3],
        ]),
        finished: [ok(8), ok(9), bad(12)],
      },
      max: 5,
      want: [1],
      held: { 2: /^pacing: rack 3 allows 1 repair in progress \(last failure: entry 12 at 2026-11-22T05:58:32\.500Z\)$/ },
    },
    {
      name: "a processing entry counts against its rack's allowance and is not stopped",
      entries: [processing(1), entry(2)],
      pacing: {
        domains: ["rack"],
        racks: racked([
          [1, 3],
          [2, 3],
        ]),
        finished: [],
      },
      max: 5,
      want: [],
      held: { 2: /pacing: rack 3 allows 1 repair/ },
    },
    {
      name: "processing entries above a dropped allowance go on; new ones wait",
      entries: [processing(1, { lastTransitionTime: T - 61 * SEC }), processing(2, { lastTransitionTime: T - 61 * SEC }), entry(3)],
      pacing: {
        domains: ["rack"],
        racks: racked([
          [1, 3],
          [2, 3],
          [3, 3],
        ]),
        finished: [bad(7)],
      },
      max: 5,
      want: [1, 2],
      held: { 3: /allows 1 repair/ },
    },
    {
      name: "machine_type: a type with a failure waits, another type starts",
      entries: [entry(1), entry(2), entry(3, { machineType: "q" })],
      pacing: { domains: ["machine_type"], racks: new Map(), finished: [bad(7)] },
      max: 5,
      want: [1, 3],
      held: { 2: /^pacing: machine type "m" allows 1 repair in progress \(last failure: entry 7/ },
    },
    {
      name: "any domain at its allowance holds: the rack has room but the machine type has not",
      entries: [entry(1), entry(2)],
      pacing: {
        domains: ["rack", "machine_type"],
        racks: racked([
          [1, 3],
          [2, 4],
        ]),
        finished: [],
      },
      max: 5,
      want: [1],
      held: { 2: /machine type "m" allows 1/ },
    },
    {
      name: "an entry with no known rack is not paced by rack",
      entries: [entry(1), entry(2)],
      pacing: { domains: ["rack"], racks: racked([[1, 3]]), finished: [] },
      max: 5,
      want: [1, 2],
    },
    {
      name: "max_concurrent_repairs stays a hard limit above the allowance",
      entries: [entry(1), entry(2), entry(3)],
      pacing: {
        domains: ["rack"],
        racks: racked([
          [1, 3],
          [2, 3],
          [3, 3],
        ]),
        finished: [ok(7), ok(8)],
      },
      max: 2,
      want: [1, 2],
      held: { 3: /^max_concurrent_repairs \(2\) reached$/ },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const snap = { ...snapshot(c.entries, {}, { config: TWO_TYPES, max: c.max }), ...(c.pacing && { pacing: c.pacing }) };
      const plan = decideRepairActions(snap, T, fixedRandom(0));
      assert.deepEqual(started(plan), c.want);
      for (const [index, pattern] of Object.entries(c.held ?? {})) assert.match(plan.held.get(Number(index))?.message ?? "(not held)", pattern);
    });
  }
});

describe("pacingReport", () => {
  it("counts processing entries per domain, not queued ones nor those waiting out a drain back-off", () => {
    const input: PacingInput = {
      domains: ["rack"],
      racks: racked([
        [1, 3],
        [2, 3],
        [3, 3],
        [4, 3],
      ]),
      finished: [ok(9)],
    };
    const entries = [
      processing(1),
      processing(2, { stepStatus: "waiting", drainBackoffCount: 1, drainBackoffExpire: T + 400 * SEC }),
      entry(3),
      processing(4, { deleted: true }),
    ];
    assert.deepEqual(
      pacingReport(input, entries, 8, T).map((d) => [d.value, d.allowance, d.inProgress, d.lastChange?.entryIndex]),
      [["3", 2, 1, 9]],
    );
  });
  it("does not count a control plane that gave up the turn (the decision counts it in no domain either)", () => {
    const input: PacingInput = {
      domains: ["rack"],
      racks: racked([
        [1, 3],
        [2, 3],
      ]),
      finished: [],
    };
    assert.deepEqual(
      pacingReport(input, [processing(1), processing(2)], 8, T, new Set([1])).map((d) => [d.value, d.inProgress]),
      [["3", 1]],
    );
  });
});
