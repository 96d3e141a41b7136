import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FinishedRepair } from "../../../src/domain/queue/finished-repair.js";
import { decideEscalation, describeWindow, repairsInWindow, type EscalationConfig } from "../../../src/domain/escalation/repair-escalation.js";
import { SEC, T, entry } from "../queue/repair-decision-support.js";
import { readReleases, storedReleases, withRelease } from "../../../src/domain/escalation/escalation-releases.js";

const HOUR = 3600 * SEC;
const ADDRESS = "10.0.0.7";
const queued = (index: number, createdAt: number, operation = "unhealthy") => entry(index, { address: ADDRESS, createdAt, operation });
const record = (
  entryIndex: number,
  createdAt: number,
  status: FinishedRepair["status"] = "succeeded",
  operation = "unhealthy",
  address = ADDRESS,
): FinishedRepair => ({
  sequence: entryIndex * 10,
  entryIndex,
  address,
  machineType: "m",
  operation,
  source: "sabakan",
  createdAt,
  finishedAt: createdAt + 60 * SEC,
  status,
  proof: null,
});
const RETIRE: EscalationConfig = { maxRepairs: 3, windowSeconds: 3600, operation: "retire" };
const HOLD: EscalationConfig = { maxRepairs: 3, windowSeconds: 3600, operation: null };

describe("decideEscalation (repeat offenders)", () => {
  const cases: Array<{
    name: string;
    config?: EscalationConfig;
    entries?: ReturnType<typeof queued>[];
    finished?: FinishedRepair[];
    releases?: ReadonlyMap<string, number>;
    expected: string | null;
  }> = [
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
    {
      name: "released after its repairs: the repairs it was released from count no more (not held again at the next poll)",
      config: HOLD,
      finished: [record(1, T - 50 * 60 * SEC), record(2, T - 40 * 60 * SEC), record(3, T - 30 * 60 * SEC)],
      releases: new Map([[ADDRESS, T - 20 * 60 * SEC]]),
      expected: null,
    },
    {
      name: "released, then repaired max_repairs times again: escalated for the new repairs only",
      config: HOLD,
      finished: [
        record(1, T - 50 * 60 * SEC),
        record(2, T - 40 * 60 * SEC),
        record(3, T - 30 * 60 * SEC),
        record(4, T - 15 * 60 * SEC),
        record(5, T - 10 * 60 * SEC),
      ],
      entries: [queued(6, T - 5 * 60 * SEC)],
      releases: new Map([[ADDRESS, T - 20 * 60 * SEC]]),
      expected: "hold repaired 3 times in 1h: repaired 3 times in 1h: held",
    },
    {
      name: "a repair created in the very millisecond of the release is not after it",
      config: HOLD,
      finished: [record(1, T - 20 * 60 * SEC), record(2, T - 10 * 60 * SEC), record(3, T - 5 * 60 * SEC)],
      releases: new Map([[ADDRESS, T - 20 * 60 * SEC]]),
      expected: null,
    },
    {
      name: "another machine's release changes nothing",
      config: HOLD,
      finished: [record(1, T - 50 * 60 * SEC), record(2, T - 40 * 60 * SEC), record(3, T - 30 * 60 * SEC)],
      releases: new Map([["10.0.0.8", T - 20 * 60 * SEC]]),
      expected: "hold repaired 3 times in 1h: repaired 3 times in 1h: held",
    },
    {
      name: "a release older than the window changes nothing",
      config: RETIRE,
      finished: [record(1, T - 50 * 60 * SEC), record(2, T - 40 * 60 * SEC), record(3, T - 30 * 60 * SEC)],
      releases: new Map([[ADDRESS, T - 2 * HOUR]]),
      expected: "operation retire: repaired 3 times in 1h: enqueued retire instead",
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const e = decideEscalation(c.config, ADDRESS, { entries: c.entries ?? [], finished: c.finished ?? [], ...(c.releases && { releases: c.releases }) }, T);
      const said = e === null ? null : e.kind === "operation" ? `operation ${e.operation}: ${e.reason}` : `hold ${e.holdReason}: ${e.reason}`;
      assert.equal(said, c.expected);
    });
  }

  it("counts each entry once, oldest first", () => {
    const counted = repairsInWindow(
      ADDRESS,
      { entries: [queued(3, T - 5 * SEC), queued(1, T - 50 * SEC)], finished: [record(1, T - 50 * SEC), record(2, T - 20 * SEC)] },
      3600,
      T,
    );
    assert.deepEqual(
      counted.map((r) => r.entryIndex),
      [1, 2, 3],
    );
  });
});

describe("escalation releases (as stored)", () => {
  it("a release replaces the machine's earlier one; the newest are kept past the bound", () => {
    const first = withRelease(new Map(), "10.0.0.1", 100, 2);
    const second = withRelease(first, "10.0.0.2", 200, 2);
    assert.deepEqual(
      [...withRelease(second, "10.0.0.1", 300, 2)],
      [
        ["10.0.0.2", 200],
        ["10.0.0.1", 300],
      ],
    );
    assert.deepEqual([...withRelease(second, "10.0.0.3", 300, 2)].sort(), [
      ["10.0.0.2", 200],
      ["10.0.0.3", 300],
    ]);
  });

  const hostile: Array<[string, unknown, Array<[string, number]>]> = [
    ["not an object", [1, 2], []],
    ["null", null, []],
    ["a key that is not an address", { "-rf": 1, "10.0.0.1": 5 }, [["10.0.0.1", 5]]],
    ["an address not in canonical form", { "::ffff:10.0.0.1": 5 }, []],
    ["a time that is not a whole number of ms", { "10.0.0.1": 1.5, "10.0.0.2": "5", "10.0.0.3": -1 }, []],
  ];
  for (const [name, value, expected] of hostile) it(`a stored value with ${name} reads without it`, () => assert.deepEqual([...readReleases(value)], expected));

  it("round-trips through its stored form", () => {
    const releases = withRelease(withRelease(new Map(), "10.0.0.1", 100), "fd00::1", 200);
    assert.deepEqual(readReleases(JSON.parse(JSON.stringify(storedReleases(releases)))), releases);
  });
});

describe("describeWindow", () => {
  const cases: Array<[number, string]> = [
    [45, "45s"],
    [60, "1m"],
    [5400, "1h 30m"],
    [3600, "1h"],
    [86_400, "1d"],
    [7 * 86_400, "7d"],
    [93_784, "1d 2h"],
    [0, "0s"],
  ];
  for (const [seconds, said] of cases) it(`${seconds} s is ${said}`, () => assert.equal(describeWindow(seconds), said));
});
