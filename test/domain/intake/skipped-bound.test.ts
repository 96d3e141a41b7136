import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { SkipKind } from "../../../src/domain/intake/skip-kinds.js";
import {
  boundSkipped,
  countsMatchList,
  countSkipped,
  keptSkips,
  LISTED_SKIPS,
  skippedCountsOf,
  skippedPhrase,
  type SkippedCounts,
} from "../../../src/domain/intake/skipped-bound.js";

const skips = (kind: SkipKind, n: number, from = 0) => Array.from({ length: n }, (_, i) => ({ kind, serial: `${kind}-${String(from + i).padStart(5, "0")}` }));
/** `n` skips of `kind` in each of `racks` racks, in serial order (rack by rack). */
const inRacks = (kind: SkipKind, racks: number, n: number) =>
  Array.from({ length: racks * n }, (_, i) => ({ kind, serial: `${kind}-${String(i).padStart(5, "0")}`, rack: Math.floor(i / n) }));
const perKind = (list: ReadonlyArray<{ kind: SkipKind }>) =>
  countSkipped(list)
    .byKind.map((c) => `${c.kind}=${c.machines}`)
    .join(" ");

describe("boundSkipped", () => {
  const cases: Array<[string, Array<{ kind: SkipKind; serial: string }>, number, string]> = [
    ["under the limit: all listed", [...skips("no_address", 3), ...skips("held", 2)], 10, "no_address=3 held=2"],
    ["exactly the limit: all listed", skips("queue_limit", 10), 10, "queue_limit=10"],
    ["one kind over the limit: its first ones", skips("queue_limit", 25), 10, "queue_limit=10"],
    ["a small kind is listed whole, the big one takes the rest", [...skips("queue_limit", 25), ...skips("no_address", 2)], 10, "queue_limit=8 no_address=2"],
    [
      "big kinds share equally, every slot used",
      [...skips("rack_limit", 30), ...skips("queue_limit", 30), ...skips("rebooting", 30)],
      10,
      "rack_limit=4 queue_limit=3 rebooting=3",
    ],
    ["more kinds than slots: the smallest first", [...skips("rack_limit", 5), ...skips("held", 1), ...skips("escalated", 1)], 2, "held=1 escalated=1"],
  ];
  for (const [name, skipped, limit, listed] of cases) {
    it(name, () => {
      const bound = boundSkipped(skipped, limit);
      assert.equal(perKind(bound.skipped), listed);
      assert.ok(bound.skipped.length <= limit);
      assert.deepEqual(bound.counts, countSkipped(skipped), "the counts are whole");
      const order = skipped.filter((s) => bound.skipped.includes(s));
      assert.deepEqual(bound.skipped, order, "in the decision's order");
      for (const { kind } of countSkipped(bound.skipped).byKind) {
        assert.deepEqual(
          bound.skipped.filter((s) => s.kind === kind),
          skipped.filter((s) => s.kind === kind).slice(0, bound.skipped.filter((s) => s.kind === kind).length),
          `${kind}: its first machines`,
        );
      }
    });
  }

  const byRack: Array<[string, Array<{ kind: SkipKind; serial: string; rack: number }>, number, Record<number, number>]> = [
    ["every rack gets its first machines before any gets more", inRacks("rack_limit", 3, 10), 6, { 0: 2, 1: 2, 2: 2 }],
    ["a slot left over goes to the first racks", inRacks("rack_limit", 3, 10), 7, { 0: 3, 1: 2, 2: 2 }],
    ["more racks than slots: the first racks, one machine each", inRacks("rack_limit", 5, 2), 3, { 0: 1, 1: 1, 2: 1 }],
  ];
  for (const [name, skipped, limit, perRack] of byRack) {
    it(name, () => {
      const listed = boundSkipped(skipped, limit).skipped;
      const counted: Record<number, number> = {};
      for (const s of listed) counted[s.rack] = (counted[s.rack] ?? 0) + 1;
      assert.deepEqual(counted, perRack);
      for (const rack of Object.keys(perRack).map(Number)) {
        const inRack = listed.filter((s) => s.rack === rack);
        assert.deepEqual(inRack, skipped.filter((s) => s.rack === rack).slice(0, inRack.length), `rack ${rack}: its first machines`);
      }
      assert.deepEqual(
        listed,
        skipped.filter((s) => listed.includes(s)),
        "in the decision's order",
      );
    });
  }

  it("a 10,000-machine storm keeps 1,000 and counts 10,000, interleaved kinds in the decision's order", () => {
    const storm = Array.from({ length: 10_000 }, (_, i) => ({
      kind: (i % 100 === 0 ? "no_address" : i % 2 ? "rack_limit" : "queue_limit") as SkipKind,
      serial: String(i),
    }));
    const kept = keptSkips(storm);
    assert.equal(kept.skipped.length, LISTED_SKIPS);
    assert.deepEqual(kept.skippedCounts, {
      total: 10_000,
      byKind: [
        { kind: "rack_limit", machines: 5_000 },
        { kind: "queue_limit", machines: 4_900 },
        { kind: "no_address", machines: 100 },
      ],
    });
    assert.equal(perKind(kept.skipped), "rack_limit=450 queue_limit=450 no_address=100");
    assert.deepEqual(
      kept.skipped.map((s) => Number(s.serial)),
      [...kept.skipped.map((s) => Number(s.serial))].sort((a, b) => a - b),
    );
  });
});

describe("skippedCountsOf", () => {
  const cases: Array<[string, { skipped: Array<{ kind: SkipKind }>; skippedCounts?: SkippedCounts }, SkippedCounts]> = [
    [
      "stored counts win over the bounded list",
      { skipped: skips("held", 1), skippedCounts: { total: 5_000, byKind: [{ kind: "held", machines: 5_000 }] } },
      { total: 5_000, byKind: [{ kind: "held", machines: 5_000 }] },
    ],
    [
      "an outcome stored before the bound: counted from its whole list",
      { skipped: [...skips("held", 2), ...skips("rack_limit", 1)] },
      {
        total: 3,
        byKind: [
          { kind: "rack_limit", machines: 1 },
          { kind: "held", machines: 2 },
        ],
      },
    ],
    ["no skips", { skipped: [] }, { total: 0, byKind: [] }],
  ];
  for (const [name, outcome, counts] of cases) it(name, () => assert.deepEqual(skippedCountsOf(outcome), counts));
});

describe("countsMatchList", () => {
  const cases: Array<[string, SkippedCounts, Array<{ kind: SkipKind }>, RegExp | null]> = [
    ["consistent", { total: 5, byKind: [{ kind: "held", machines: 5 }] }, skips("held", 2), null],
    ["kinds do not sum to the total", { total: 6, byKind: [{ kind: "held", machines: 5 }] }, skips("held", 2), /sum to 5, not the total 6/],
    ["more listed than the total", { total: 1, byKind: [{ kind: "held", machines: 1 }] }, skips("held", 2), /2 skips are listed, more than the total 1/],
    [
      "a kind listed beyond its count",
      { total: 2, byKind: [{ kind: "held", machines: 2 }] },
      skips("no_address", 1),
      /1 no_address skips are listed, more than their count 0/,
    ],
    [
      "a kind counted twice",
      {
        total: 2,
        byKind: [
          { kind: "held", machines: 1 },
          { kind: "held", machines: 1 },
        ],
      },
      [],
      /counted twice/,
    ],
  ];
  for (const [name, counts, listed, wrong] of cases) {
    it(name, () => {
      const found = countsMatchList(counts, listed);
      if (wrong === null) assert.equal(found, null);
      else assert.match(found ?? "", wrong);
    });
  }
});

describe("skippedPhrase", () => {
  const cases: Array<[string, number, number, string]> = [
    ["none", 0, 0, "0 skipped"],
    ["all listed", 3, 3, "3 skipped"],
    ["a storm's list cut at 1,000", 10_000, 1_000, "10,000 skipped (first 1,000 listed)"],
  ];
  for (const [name, total, listed, phrase] of cases) it(name, () => assert.equal(skippedPhrase(total, listed), phrase));
});
