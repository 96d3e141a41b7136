import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { OUTAGE_REMINDER_MS, outageStep, REACHABLE, retryDelay, type OutageNotice, type OutageState } from "../../../src/domain/service/outage-notice.js";
import { NOW } from "../../support/fixtures.js";

const SECOND = 1000;

/** Runs calls (`true` worked) at the given offsets from NOW; returns the notices and the last state. */
function run(calls: ReadonlyArray<readonly [number, boolean]>): { notices: OutageNotice[]; state: OutageState } {
  let state = REACHABLE;
  const notices: OutageNotice[] = [];
  for (const [at, worked] of calls) {
    const step = outageStep(state, worked ? "worked" : "failed", NOW + at);
    state = step.state;
    notices.push(step.notice);
  }
  return { notices, state };
}

describe("outageStep: when a dependency's failures are logged", () => {
  const everySecond = (from: number, count: number, worked: boolean) => Array.from({ length: count }, (_, i) => [from + i * SECOND, worked] as const);
  const cases: Array<{ name: string; calls: ReadonlyArray<readonly [number, boolean]>; notices: OutageNotice[]; state: OutageState }> = [
    { name: "calls that work say nothing", calls: everySecond(0, 3, true), notices: [null, null, null], state: REACHABLE },
    {
      name: "the first failure is said, the next ones are not",
      calls: everySecond(0, 4, false),
      notices: ["down", null, null, null],
      state: { downSince: NOW, loggedAt: NOW, failures: 4 },
    },
    {
      name: "a failure 5 minutes after the last line is a reminder, and the next reminder counts from it",
      calls: [
        [0, false],
        [OUTAGE_REMINDER_MS - 1, false],
        [OUTAGE_REMINDER_MS, false],
        [OUTAGE_REMINDER_MS + SECOND, false],
        [2 * OUTAGE_REMINDER_MS, false],
      ],
      notices: ["down", null, "still-down", null, "still-down"],
      state: { downSince: NOW, loggedAt: NOW + 2 * OUTAGE_REMINDER_MS, failures: 5 },
    },
    {
      name: "a call that works after failures is said once, and the next failure starts a new run",
      calls: [
        [0, false],
        [SECOND, false],
        [2 * SECOND, true],
        [3 * SECOND, true],
        [4 * SECOND, false],
      ],
      notices: ["down", null, "back", null, "down"],
      state: { downSince: NOW + 4 * SECOND, loggedAt: NOW + 4 * SECOND, failures: 1 },
    },
    {
      name: "a clock that went back brings no reminder",
      calls: [
        [0, false],
        [-OUTAGE_REMINDER_MS, false],
      ],
      notices: ["down", null],
      state: { downSince: NOW, loggedAt: NOW, failures: 2 },
    },
  ];
  for (const { name, calls, notices, state } of cases) {
    it(name, () => assert.deepEqual(run(calls), { notices, state }));
  }

  it("a day of failures every half second writes 1 line and a reminder every 5 minutes (288 lines, not 172,800)", () => {
    const { notices } = run(Array.from({ length: 2 * 86_400 }, (_, i) => [i * 500, false] as const));
    assert.equal(notices.filter((n) => n !== null).length, 288);
  });
});

describe("retryDelay: back-off to a cap", () => {
  const cases: Array<[string, number, number]> = [
    ["no failure yet: the first delay", 0, 1_000],
    ["after the first failure: the first delay", 1, 1_000],
    ["doubling", 2, 2_000],
    ["doubling again", 4, 8_000],
    ["at the cap", 6, 30_000],
    ["never past the cap, however many failures", 10_000, 30_000],
  ];
  for (const [name, failures, expected] of cases) {
    it(name, () => assert.equal(retryDelay(failures, 1_000, 30_000), expected));
  }
});
