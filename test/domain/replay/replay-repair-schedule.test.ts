import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FinishedRepair } from "../../../src/domain/queue/finished-repair.js";
import type { FinishedOutcome } from "../../../src/domain/pacing/repair-pacing.js";
import {
  advanceSchedule,
  emptySchedule,
  enqueueScheduled,
  pacingSeedOf,
  withdrawScheduled,
  type ReplayRepairModel,
  type ScheduledRepair,
} from "../../../src/domain/replay/replay-repair-schedule.js";

const T0 = Date.UTC(2026, 10, 1);
const MIN = 60_000;
const HOUR = 60 * MIN;

const repair = (address: string, rack: number | null = 1, machineType: string | null = "qemu"): ScheduledRepair => ({
  address,
  rack,
  machineType,
  enqueuedAt: T0,
});
const model = (over: Partial<ReplayRepairModel> = {}): ReplayRepairModel => ({ repairSeconds: 3600, maxConcurrentRepairs: 1, pacingDomains: [], ...over });
const outcome = (status: "succeeded" | "failed", rack: number, minutesBefore: number): FinishedOutcome => ({
  entryIndex: minutesBefore,
  machineType: "qemu",
  rack,
  status,
  time: T0 - minutesBefore * MIN,
});

describe("advanceSchedule", () => {
  const cases: Array<{
    name: string;
    repairs: ScheduledRepair[];
    model: ReplayRepairModel;
    ahead?: Array<Omit<ScheduledRepair, "enqueuedAt">>;
    seed?: FinishedOutcome[];
    until: number;
    finished: string[];
    running: Array<[string, number]>;
    waiting: string[];
  }> = [
    {
      name: "max_concurrent_repairs 1: one at a time, in the order enqueued",
      repairs: [repair("10.0.0.1"), repair("10.0.0.2")],
      model: model(),
      until: T0 + 90 * MIN,
      finished: ["10.0.0.1"],
      running: [["10.0.0.2", T0 + HOUR]],
      waiting: [],
    },
    {
      name: "max_concurrent_repairs 2: both at once",
      repairs: [repair("10.0.0.1"), repair("10.0.0.2")],
      model: model({ maxConcurrentRepairs: 2 }),
      until: T0 + HOUR,
      finished: ["10.0.0.1", "10.0.0.2"],
      running: [],
      waiting: [],
    },
    {
      name: "a repair ends exactly repairSeconds after it started, not before",
      repairs: [repair("10.0.0.1")],
      model: model(),
      until: T0 + HOUR - 1,
      finished: [],
      running: [["10.0.0.1", T0]],
      waiting: [],
    },
    {
      name: "entries ahead of the simulation hold the concurrency: nothing starts",
      repairs: [repair("10.0.0.1")],
      model: model({ maxConcurrentRepairs: 2 }),
      ahead: [repair("10.0.9.1"), repair("10.0.9.2")],
      until: T0 + 10 * HOUR,
      finished: [],
      running: [],
      waiting: ["10.0.0.1"],
    },
    {
      name: "pacing by rack: slow start, 1 then 2 after a success",
      repairs: [repair("10.0.0.1"), repair("10.0.0.2"), repair("10.0.0.3")],
      model: model({ maxConcurrentRepairs: 3, pacingDomains: ["rack"] }),
      until: T0 + 2 * HOUR,
      finished: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
      running: [],
      waiting: [],
    },
    {
      name: "pacing by rack: half way, two start together after the first success",
      repairs: [repair("10.0.0.1"), repair("10.0.0.2"), repair("10.0.0.3")],
      model: model({ maxConcurrentRepairs: 3, pacingDomains: ["rack"] }),
      until: T0 + 90 * MIN,
      finished: ["10.0.0.1"],
      running: [
        ["10.0.0.2", T0 + HOUR],
        ["10.0.0.3", T0 + HOUR],
      ],
      waiting: [],
    },
    {
      name: "a repair held back by its rack does not block another rack's",
      repairs: [repair("10.0.0.1", 1), repair("10.0.0.2", 1), repair("10.0.0.3", 2)],
      model: model({ maxConcurrentRepairs: 3, pacingDomains: ["rack"] }),
      until: T0,
      finished: [],
      running: [
        ["10.0.0.1", T0],
        ["10.0.0.3", T0],
      ],
      waiting: ["10.0.0.2"],
    },
    {
      name: "an entry ahead in the same rack holds the rack's allowance",
      repairs: [repair("10.0.0.1", 1), repair("10.0.0.3", 2)],
      model: model({ maxConcurrentRepairs: 3, pacingDomains: ["rack"] }),
      ahead: [repair("10.0.9.1", 1)],
      until: T0,
      finished: [],
      running: [["10.0.0.3", T0]],
      waiting: ["10.0.0.1"],
    },
    {
      name: "outcomes before the replay seed the allowance: two successes allow 4",
      repairs: [repair("10.0.0.1"), repair("10.0.0.2"), repair("10.0.0.3")],
      model: model({ maxConcurrentRepairs: 8, pacingDomains: ["rack"] }),
      seed: [outcome("succeeded", 1, 20), outcome("succeeded", 1, 10)],
      until: T0,
      finished: [],
      running: [
        ["10.0.0.1", T0],
        ["10.0.0.2", T0],
        ["10.0.0.3", T0],
      ],
      waiting: [],
    },
    {
      name: "a failure before the replay returns the allowance to 1",
      repairs: [repair("10.0.0.1"), repair("10.0.0.2")],
      model: model({ maxConcurrentRepairs: 8, pacingDomains: ["rack"] }),
      seed: [outcome("succeeded", 1, 20), outcome("failed", 1, 10)],
      until: T0,
      finished: [],
      running: [["10.0.0.1", T0]],
      waiting: ["10.0.0.2"],
    },
    {
      name: "pacing by machine type leaves a repair of unknown type to concurrency alone",
      repairs: [repair("10.0.0.1"), repair("10.0.0.2", 1, null), repair("10.0.0.3", 1, null), repair("10.0.0.4")],
      model: model({ maxConcurrentRepairs: 4, pacingDomains: ["machine_type"] }),
      until: T0,
      finished: [],
      running: [
        ["10.0.0.1", T0],
        ["10.0.0.2", T0],
        ["10.0.0.3", T0],
      ],
      waiting: ["10.0.0.4"],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      let schedule = emptySchedule(T0, c.seed);
      for (const r of c.repairs) schedule = enqueueScheduled(schedule, r);
      const got = advanceSchedule(schedule, c.until, c.ahead ?? [], c.model);
      assert.deepEqual(got.finished, c.finished);
      assert.deepEqual(
        got.schedule.running.map((r) => [r.repair.address, r.startedAt]),
        c.running,
      );
      assert.deepEqual(
        got.schedule.waiting.map((r) => r.address),
        c.waiting,
      );
      assert.equal(got.schedule.time, c.until);
    });
  }

  it("a repair in progress since an earlier advance still holds its rack's room", () => {
    const m = model({ maxConcurrentRepairs: 3, pacingDomains: ["rack"] });
    const first = advanceSchedule(enqueueScheduled(enqueueScheduled(emptySchedule(T0), repair("10.0.0.1")), repair("10.0.0.2")), T0, [], m);
    const later = advanceSchedule(first.schedule, T0 + 10 * MIN, [], m);
    assert.deepEqual(
      later.schedule.running.map((r) => [r.repair.address, r.startedAt]),
      [["10.0.0.1", T0]],
    );
    assert.deepEqual(
      later.schedule.waiting.map((r) => r.address),
      ["10.0.0.2"],
    );
  });

  it("carries over from one advance to the next as one long advance does", () => {
    const m = model({ maxConcurrentRepairs: 2, pacingDomains: ["rack"] });
    let schedule = emptySchedule(T0);
    for (const a of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]) schedule = enqueueScheduled(schedule, repair(a));
    const once = advanceSchedule(schedule, T0 + 5 * HOUR, [], m);
    const stepped: string[] = [];
    let s = schedule;
    for (let t = T0 + 10 * MIN; t <= T0 + 5 * HOUR; t += 10 * MIN) {
      const r = advanceSchedule(s, t, [], m);
      stepped.push(...r.finished);
      s = r.schedule;
    }
    assert.deepEqual(stepped, once.finished);
    assert.deepEqual(once.finished, ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]);
    assert.deepEqual([...s.allowances], [...once.schedule.allowances]);
    assert.deepEqual([...s.allowances], [["rack\u00001", 2]]);
  });
});

describe("withdrawScheduled", () => {
  it("a waiting repair leaves without an outcome", () => {
    const schedule = advanceSchedule(enqueueScheduled(enqueueScheduled(emptySchedule(T0), repair("10.0.0.1")), repair("10.0.0.2")), T0, [], model()).schedule;
    const got = withdrawScheduled(schedule, "10.0.0.2", model({ pacingDomains: ["rack"] }));
    assert.deepEqual(got.waiting, []);
    assert.equal(got.running.length, 1);
    assert.deepEqual([...got.allowances], []);
  });

  it("a repair in progress ends as a success that doubles its rack's allowance", () => {
    const m = model({ maxConcurrentRepairs: 4, pacingDomains: ["rack"] });
    let schedule = emptySchedule(T0);
    for (const a of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) schedule = enqueueScheduled(schedule, repair(a));
    schedule = advanceSchedule(schedule, T0 + MIN, [], m).schedule;
    assert.deepEqual(
      schedule.waiting.map((r) => r.address),
      ["10.0.0.2", "10.0.0.3"],
    );
    schedule = withdrawScheduled(schedule, "10.0.0.1", m);
    assert.deepEqual([...schedule.allowances], [["rack\u00001", 2]]);
    const next = advanceSchedule(schedule, T0 + MIN, [], m).schedule;
    assert.deepEqual(
      next.running.map((r) => [r.repair.address, r.startedAt]),
      [
        ["10.0.0.2", T0 + MIN],
        ["10.0.0.3", T0 + MIN],
      ],
    );
  });
});

describe("pacingSeedOf (the outcomes before the replay)", () => {
  const record = (entryIndex: number, finishedAt: number, status: "succeeded" | "failed" | "deleted", address = "10.0.0.1"): FinishedRepair => ({
    sequence: entryIndex,
    entryIndex,
    address,
    machineType: "qemu",
    operation: "unhealthy",
    source: "sabakan",
    createdAt: finishedAt - HOUR,
    finishedAt,
    status,
    proof: entryIndex === 4 ? "unproven" : null,
  });
  it("keeps the repairs that finished before since, in the order they finished, with the racks known", () => {
    const got = pacingSeedOf(
      [
        record(3, T0 - MIN, "failed"),
        record(1, T0 - 2 * MIN, "succeeded", "10.0.0.2"),
        record(2, T0 - MIN, "deleted"),
        record(5, T0, "succeeded"),
        record(4, T0 - 3 * MIN, "succeeded"),
      ],
      T0,
      new Map([["10.0.0.1", 7]]),
    );
    assert.deepEqual(got, [
      { entryIndex: 4, machineType: "qemu", rack: 7, status: "succeeded", time: T0 - 3 * MIN, proof: "unproven" },
      { entryIndex: 1, machineType: "qemu", rack: null, status: "succeeded", time: T0 - 2 * MIN },
      { entryIndex: 3, machineType: "qemu", rack: 7, status: "failed", time: T0 - MIN },
    ]);
  });
});
