import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { historySummaryOf } from "../../../src/domain/stats/repair-history-summary.js";
import type { RepairTimelinePoint } from "../../../src/domain/stats/repair-timeline.js";
import type { FinishedRepair } from "../../../src/domain/queue/finished-repair.js";
import { repairStats, type RecordedRepair, type RepairStatsDimension } from "../../../src/domain/stats/repair-stats.js";
import { MIN, finished, history } from "./repair-stats-support.js";

// A recorded week with known answers: three qemu repairs in rack 1 (two succeeded in one and two steps, one failed),
// one dell repair in rack 2 dequeued while queued, and one dell repair of a machine sabakan never named.
const DRAINED_ONE_STEP = history(1, [
  [0, "queued", 0, "waiting"],
  [1, "processing", 0, "draining"],
  [4, "processing", 0, "watching"],
  [10, "succeeded", 0, "watching"],
]);
const TWO_STEPS = history(2, [
  [0, "queued", 0, "waiting"],
  [1, "processing", 0, "draining"],
  [3, "processing", 0, "watching"],
  [10, "processing", 1, "draining"],
  [15, "processing", 1, "watching"],
  [30, "succeeded", 1, "watching"],
]);
const FAILED = history(3, [
  [0, "queued", 0, "waiting"],
  [1, "processing", 0, "watching"],
  [50, "failed", 0, "watching"],
]);
const recorded = (repair: FinishedRepair, h: readonly RepairTimelinePoint[] | null): RecordedRepair => ({
  repair,
  summary: h && historySummaryOf(h, repair.finishedAt),
});
const WEEK: RecordedRepair[] = [
  recorded(finished(1, { durationMin: 10 }), DRAINED_ONE_STEP),
  recorded(finished(2, { durationMin: 30 }), TWO_STEPS),
  recorded(finished(3, { durationMin: 50, status: "failed" }), FAILED),
  recorded(finished(4, { machineType: "dell", durationMin: 5, status: "deleted" }), history(4, [[0, "queued", 0, "waiting"]])),
  recorded(finished(5, { machineType: "dell", operation: "retire", durationMin: 20 }), null),
];
const RACKS = new Map([
  ["10.0.0.1", 1],
  ["10.0.0.2", 1],
  ["10.0.0.3", 1],
  ["10.0.0.4", 2],
]);

describe("repairStats over a recorded week with known answers", () => {
  it("ungrouped: every repair in one group", () => {
    assert.deepEqual(repairStats(WEEK, [], RACKS), [
      {
        key: { machineType: null, operation: null, rack: null, step: null },
        entries: 5,
        succeeded: 3,
        failed: 1,
        deleted: 1,
        successRate: 0.75,
        timeToRepair: { p50: 20 * MIN, p90: 50 * MIN, max: 50 * MIN },
        drainingMs: (3 + 2 + 5) * MIN,
        stepsNeeded: { p50: 1, max: 2 },
        withHistory: 4,
      },
    ]);
  });

  const cases: Array<{ name: string; groupBy: RepairStatsDimension[]; expected: Array<[string, number, number | null, number | null]> }> = [
    // [key values joined by "/", entries, success rate, p50 time to repair in minutes]
    {
      name: "by machine type",
      groupBy: ["machineType"],
      expected: [
        ["qemu", 3, 2 / 3, 30],
        ["dell", 2, 1, 20],
      ],
    },
    {
      name: "by rack: a machine of unknown rack is grouped as unknown",
      groupBy: ["rack"],
      expected: [
        ["1", 3, 2 / 3, 30],
        ["2", 1, null, null],
        ["unknown", 1, 1, 20],
      ],
    },
    {
      name: "by step: the step each ended in, unknown without history",
      groupBy: ["step"],
      expected: [
        ["0", 3, 0.5, 10],
        ["1", 1, 1, 30],
        ["unknown", 1, 1, 20],
      ],
    },
    {
      name: "by machine type and operation",
      groupBy: ["operation", "machineType"],
      expected: [
        ["qemu/unhealthy", 3, 2 / 3, 30],
        ["dell/retire", 1, 1, 20],
        ["dell/unhealthy", 1, null, null],
      ],
    },
    {
      name: "by three dimensions: the groups of equal size ordered by key",
      groupBy: ["step", "operation", "machineType"],
      expected: [
        ["qemu/unhealthy/0", 2, 0.5, 10],
        ["dell/retire/unknown", 1, 1, 20],
        ["dell/unhealthy/0", 1, null, null],
        ["qemu/unhealthy/1", 1, 1, 30],
      ],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const groups = repairStats(WEEK, c.groupBy, RACKS).map((g) => [
        [g.key.machineType, g.key.operation, g.key.rack, g.key.step].filter((v) => v !== null).join("/"),
        g.entries,
        g.successRate,
        g.timeToRepair === null ? null : g.timeToRepair.p50 / MIN,
      ]);
      assert.deepEqual(groups, c.expected);
    });
  }

  it("no repairs: no groups, grouped or not", () => {
    assert.deepEqual(repairStats([], ["rack"], RACKS), []);
    assert.deepEqual(repairStats([], [], RACKS), []);
  });

  it("draining and steps count only the repairs whose history was read", () => {
    const [dell] = repairStats(WEEK.slice(3), ["machineType"], RACKS);
    assert.equal(dell!.withHistory, 1);
    assert.equal(dell!.drainingMs, 0);
    assert.equal(dell!.stepsNeeded, null, "the succeeded dell repair has no history read, the other was deleted");
  });
});
