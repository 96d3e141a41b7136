import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { frequentlyRepaired, machineRepairs } from "../../../src/domain/stats/machine-repairs.js";
import { MIN, T, finished } from "./repair-stats-support.js";

const A = "10.0.0.1";
const B = "10.0.0.2";
const RECORDS = [
  finished(3, { address: A, createdMin: 100, durationMin: 10, status: "failed" }),
  finished(1, { address: A, createdMin: 0, durationMin: 10 }),
  finished(2, { address: B, createdMin: 5, durationMin: 10, machineType: "dell" }),
  finished(4, { address: A, createdMin: 200, durationMin: 10 }),
  finished(5, { address: B, createdMin: 300, durationMin: 10, machineType: "dell" }),
  finished(6, { address: "10.0.0.3", createdMin: 400, durationMin: 10 }),
];

describe("machineRepairs", () => {
  it("every repair of the machine, oldest first, with the time since the previous one finished", () => {
    const result = machineRepairs(RECORDS, [A]);
    assert.deepEqual(
      result.repairs.map((r) => [r.repair.entryIndex, r.sincePreviousMs === null ? null : r.sincePreviousMs / MIN]),
      [
        [1, null],
        [3, 90],
        [4, 90],
      ],
    );
    assert.equal(result.meanTimeBetweenFailuresMs, 90 * MIN);
  });
  it("a machine with several addresses: the repairs of each", () => {
    assert.deepEqual(
      machineRepairs(RECORDS, [A, B]).repairs.map((r) => r.repair.entryIndex),
      [1, 2, 3, 4, 5],
    );
  });
  it("a repeat enqueued before the previous finished: 0, not negative", () => {
    const overlapping = [finished(1, { address: A, createdMin: 0, durationMin: 30 }), finished(2, { address: A, createdMin: 10 })];
    assert.deepEqual(
      machineRepairs(overlapping, [A]).repairs.map((r) => r.sincePreviousMs),
      [null, 0],
    );
  });
  it("one repair: no time between failures", () => assert.equal(machineRepairs(RECORDS, ["10.0.0.3"]).meanTimeBetweenFailuresMs, null));
  it("never repaired: nothing", () => assert.deepEqual(machineRepairs(RECORDS, ["10.9.9.9"]), { repairs: [], meanTimeBetweenFailuresMs: null }));
});

describe("frequentlyRepaired", () => {
  const cases: Array<{ name: string; sinceMin: number; top: number; expected: Array<[string, number]> }> = [
    {
      name: "most repairs first, then the latest repaired",
      sinceMin: 0,
      top: 10,
      expected: [
        [A, 3],
        [B, 2],
        ["10.0.0.3", 1],
      ],
    },
    { name: "top bounds the answer", sinceMin: 0, top: 1, expected: [[A, 3]] },
    {
      name: "repairs finished before since do not count",
      sinceMin: 100,
      top: 10,
      expected: [
        [A, 2],
        ["10.0.0.3", 1],
        [B, 1],
      ],
    },
    { name: "a finish exactly at since counts", sinceMin: 410, top: 10, expected: [["10.0.0.3", 1]] },
    { name: "top 0: nothing", sinceMin: 0, top: 0, expected: [] },
  ];
  for (const c of cases) {
    it(c.name, () =>
      assert.deepEqual(
        frequentlyRepaired(RECORDS, T + c.sinceMin * MIN, c.top).map((m) => [m.address, m.repairs]),
        c.expected,
      ),
    );
  }
  it("counts succeeded and failed, and keeps the latest type and finish", () => {
    assert.deepEqual(frequentlyRepaired(RECORDS, T, 1)[0], {
      address: A,
      machineType: "qemu",
      repairs: 3,
      succeeded: 2,
      failed: 1,
      lastFinishedAt: T + 210 * MIN,
    });
  });
});
