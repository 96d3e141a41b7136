import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FinishedRepair } from "../../src/domain/finished-repair.js";
import { decideEscalation, describeWindow, repairsInWindow, type EscalationConfig } from "../../src/domain/repair-escalation.js";
import { SEC, T, entry } from "./repair-decision-support.js";

const HOUR = 3600 * SEC;
const ADDRESS = "10.0.0.7";
const queued = (index: number, createdAt: number, operation = "unhealthy") => entry(index, { address: ADDRESS, createdAt, operation });
const record = (entryIndex: number, createdAt: number, status: FinishedRepair["status"] = "succeeded", operation = "unhealthy", address = ADDRESS): FinishedRepair => ({
  sequence: entryIndex * 10, entryIndex, address, machineType: "m", operation, source: "sabakan", createdAt, finishedAt: createdAt + 60 * SEC, status, proof: null,
});
const RETIRE: EscalationConfig = { maxRepairs: 3, windowSeconds: 3600, operation: "retire" };
const HOLD: EscalationConfig = { maxRepairs: 3, windowSeconds: 3600, operation: null };

describe("decideEscalation (repeat offenders)", () => {
  const cases: Array<{ name: string; config?: EscalationConfig; entries?: ReturnType<typeof queued>[]; finished?: FinishedRepair[]; expected: string | null }> = [
    { name: "no repair.escalation: never (CKE)", finished: [record(1, T - 60 * SEC), record(2, T - 50 * SEC), record(3, T - 40 * SEC)], expected: null },
    { name: "fewer repairs than max_repairs: repaired as usual", config: RETIRE, finished: [record(1, T - 60 * SEC), record(2, T - 50 * SEC)], expected: null },
    {
      name: "max_repairs in the window, whatever became of them (dequeued, deleted, still queued): the escalation operation",
      config: RETIRE,
      finished: [record(1, T - 50 * 60 * SEC, "failed"), record(2, T - 30 * 60 * SEC, "deleted")],
      entries: [queued(3, T - 10 * 60 * SEC)],
      expected: "operation retire: repaired 3 times in 1h: enqueued retire instead",
    },
    {
      name: "an entry still queued that also has a record is counted once",
      config: RETIRE,
      finished: [record(1, T - 50 * 60 * SEC), record(2, T - 30 * 60 * SEC, "failed")],
      entries: [queued(2, T - 30 * 60 * SEC, "unhealthy")],
      expected: null,
    },
    {
      name: "an entry created exactly one window ago is outside it",
      config: RETIRE,
      finished: [record(1, T - HOUR), record(2, T - 30 * 60 * SEC), record(3, T - 10 * 60 * SEC)],
      expected: null,
    },
    {
      name: "an entry created a millisecond inside the window counts",
      config: RETIRE,
      finished: [record(1, T - HOUR + 1), record(2, T - 30 * 60 * SEC), record(3, T - 10 * 60 * SEC)],
      expected: "operation retire: repaired 3 times in 1h: enqueued retire instead",
    },
    {
      name: "other machines' repairs do not count",
      config: RETIRE,
      finished: [record(1, T - 60 * SEC), record(2, T - 50 * SEC, "succeeded", "unhealthy", "10.0.0.8"), record(3, T - 40 * SEC)],
      expected: null,
    },
    {
      name: "without an operation: held, repaired N times in W",
      config: HOLD,
      finished: [record(1, T - 60 * SEC), record(2, T - 50 * SEC), record(3, T - 40 * SEC), record(4, T - 30 * SEC)],
      expected: "hold repaired 4 times in 1h: repaired 4 times in 1h: held",
    },
    {
      name: "loop guard: a machine already escalated within the window is held, not given the operation again",
      config: RETIRE,
      finished: [record(1, T - 50 * 60 * SEC), record(2, T - 40 * 60 * SEC), record(3, T - 30 * 60 * SEC), record(4, T - 20 * 60 * SEC, "succeeded", "retire")],
      expected: "hold repaired 4 times in 1h, already escalated to retire (entry 4): repaired 4 times in 1h, already escalated to retire (entry 4): held",
    },
    {
      name: "an escalation that left the window no longer guards: escalated again",
      config: RETIRE,
      finished: [record(4, T - 2 * HOUR, "succeeded", "retire"), record(5, T - 30 * 60 * SEC), record(6, T - 20 * 60 * SEC), record(7, T - 10 * 60 * SEC)],
      expected: "operation retire: repaired 3 times in 1h: enqueued retire instead",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = decideEscalation(c.config, ADDRESS, { entries: c.entries ?? [], finished: c.finished ?? [] }, T);
      const said = e === null ? null : e.kind === "operation" ? `operation ${e.operation}: ${e.reason}` : `hold ${e.holdReason}: ${e.reason}`;
      assert.equal(said, c.expected);
    });
  }

  it("counts each entry once, oldest first", () => {
    const counted = repairsInWindow(ADDRESS, { entries: [queued(3, T - 5 * SEC), queued(1, T - 50 * SEC)], finished: [record(1, T - 50 * SEC), record(2, T - 20 * SEC)] }, 3600, T);
    assert.deepEqual(counted.map((r) => r.entryIndex), [1, 2, 3]);
  });
});

describe("describeWindow", () => {
  const cases: Array<[number, string]> = [[45, "45s"], [60, "1m"], [5400, "1h 30m"], [3600, "1h"], [86_400, "1d"], [7 * 86_400, "7d"], [93_784, "1d 2h"], [0, "0s"]];
  for (const [seconds, said] of cases) it(`${seconds} s is ${said}`, () => assert.equal(describeWindow(seconds), said));
});
