import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { drainingTimeOf, percentileOf, stepsNeededOf, timelinesOf } from "../../../src/domain/stats/repair-timeline.js";
import { MIN, T, history } from "./repair-stats-support.js";

describe("drainingTimeOf", () => {
  const cases: Array<{ name: string; records: Parameters<typeof history>[1]; endMin: number; expectedMin: number }> = [
    {
      name: "never drained: 0",
      records: [
        [0, "queued", 0, "waiting"],
        [1, "processing", 0, "watching"],
        [5, "succeeded", 0, "watching"],
      ],
      endMin: 5,
      expectedMin: 0,
    },
    {
      name: "one drain, from its record to the next",
      records: [
        [0, "queued", 0, "waiting"],
        [1, "processing", 0, "draining"],
        [4, "processing", 0, "watching"],
        [9, "succeeded", 0, "watching"],
      ],
      endMin: 9,
      expectedMin: 3,
    },
    {
      name: "two steps' drains are summed",
      records: [
        [0, "queued", 0, "waiting"],
        [1, "processing", 0, "draining"],
        [3, "processing", 0, "watching"],
        [10, "processing", 1, "draining"],
        [15, "processing", 1, "watching"],
        [20, "succeeded", 1, "watching"],
      ],
      endMin: 20,
      expectedMin: 7,
    },
    {
      name: "a note while draining continues the interval (counted once)",
      records: [
        [0, "processing", 0, "draining"],
        [2, "processing", 0, "draining"],
        [6, "processing", 0, "watching"],
      ],
      endMin: 6,
      expectedMin: 6,
    },
    {
      name: "a history that stops while draining counts up to the end",
      records: [
        [0, "queued", 0, "waiting"],
        [2, "processing", 0, "draining"],
      ],
      endMin: 12,
      expectedMin: 10,
    },
    {
      name: "a finished record whose step status says draining is not draining",
      records: [
        [0, "processing", 0, "watching"],
        [3, "failed", 0, "draining"],
      ],
      endMin: 30,
      expectedMin: 0,
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(drainingTimeOf(history(1, c.records), T + c.endMin * MIN), c.expectedMin * MIN));
  }
});

describe("stepsNeededOf", () => {
  const cases: Array<{ name: string; records: Parameters<typeof history>[1]; expected: number }> = [
    { name: "never processed (dequeued while queued): 0", records: [[0, "queued", 0, "waiting"]], expected: 0 },
    {
      name: "succeeded at once by proof of repair, never processing: 0",
      records: [
        [0, "queued", 0, "waiting"],
        [1, "succeeded", 0, "waiting"],
      ],
      expected: 0,
    },
    {
      name: "first step worked: 1",
      records: [
        [0, "queued", 0, "waiting"],
        [1, "processing", 0, "draining"],
        [3, "succeeded", 0, "watching"],
      ],
      expected: 1,
    },
    {
      name: "third step worked: 3",
      records: [
        [0, "processing", 0, "waiting"],
        [1, "processing", 1, "waiting"],
        [2, "processing", 2, "watching"],
        [3, "succeeded", 2, "watching"],
      ],
      expected: 3,
    },
  ];
  for (const c of cases) it(c.name, () => assert.equal(stepsNeededOf(history(1, c.records)), c.expected));
});

describe("percentileOf (nearest rank)", () => {
  const cases: Array<{ name: string; values: number[]; p: number; expected: number | null }> = [
    { name: "no values: null", values: [], p: 50, expected: null },
    { name: "one value is every percentile", values: [7], p: 90, expected: 7 },
    { name: "p50 of four is the second", values: [4, 1, 3, 2], p: 50, expected: 2 },
    { name: "p90 of ten is the ninth", values: [10, 9, 8, 7, 6, 5, 4, 3, 2, 1], p: 90, expected: 9 },
    { name: "p100 is the max", values: [3, 1, 2], p: 100, expected: 3 },
  ];
  for (const c of cases) it(c.name, () => assert.equal(percentileOf(c.values, c.p), c.expected));
});

describe("timelinesOf", () => {
  const point = (entryIndex: number, time: number) => ({ entryIndex, time, status: "queued" as const, step: 0, stepStatus: "waiting" as const });
  const cases: Array<{ name: string; points: Array<[number, number]>; cutShort: boolean; indexes: number[]; completeThrough: number }> = [
    { name: "nothing read: no timelines, complete through the last index", points: [], cutShort: false, indexes: [], completeThrough: 9 },
    {
      name: "read whole: every index, complete through the last",
      points: [
        [2, 1],
        [2, 2],
        [5, 3],
      ],
      cutShort: false,
      indexes: [2, 5],
      completeThrough: 9,
    },
    {
      name: "cut short: the last index read is left out",
      points: [
        [2, 1],
        [2, 2],
        [5, 3],
      ],
      cutShort: true,
      indexes: [2],
      completeThrough: 4,
    },
    { name: "cut short before anything was read (no limit left): complete through none", points: [], cutShort: true, indexes: [], completeThrough: -1 },
    {
      name: "cut short within the first index read: it is left out",
      points: [
        [3, 1],
        [3, 2],
      ],
      cutShort: true,
      indexes: [],
      completeThrough: 2,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const read = timelinesOf(
        c.points.map(([index, time]) => point(index, time)),
        9,
        c.cutShort,
      );
      assert.deepEqual([...read.timelines.keys()], c.indexes);
      assert.equal(read.completeThrough, c.completeThrough);
    });
  }
  it("keeps each index's points in order, without their index", () =>
    assert.deepEqual(timelinesOf([point(1, 5), point(1, 7)], 1, false).timelines.get(1), [
      { time: 5, status: "queued", step: 0, stepStatus: "waiting" },
      { time: 7, status: "queued", step: 0, stepStatus: "waiting" },
    ]));
});
