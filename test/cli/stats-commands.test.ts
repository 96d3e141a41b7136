import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { groupByOf, statsTime, topOf } from "../../src/cli/stats-commands.js";
import { shortDuration } from "../../src/cli/stats-tables.js";
import { NOW } from "../support/fixtures.js";

const HOUR = 3_600_000;

describe("statsTime", () => {
  const cases: Array<{ name: string; text: string; expected: string | RegExp }> = [
    { name: "days before now", text: "7d", expected: new Date(NOW - 7 * 24 * HOUR).toISOString() },
    { name: "days and hours", text: "1d12h", expected: new Date(NOW - 36 * HOUR).toISOString() },
    { name: "hours (Go durations)", text: "36h", expected: new Date(NOW - 36 * HOUR).toISOString() },
    { name: "an RFC 3339 time as written", text: "2026-11-01T00:00:00Z", expected: "2026-11-01T00:00:00Z" },
    { name: "a word: refused", text: "yesterday", expected: /invalid time "yesterday"/ },
    { name: "days with garbage: refused", text: "7dx", expected: /invalid time "7dx"/ },
    { name: "a date that is no date: refused", text: "2026-13-45T00:00:00Z", expected: /invalid time/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      if (typeof c.expected === "string") assert.equal(statsTime(c.text, NOW), c.expected);
      else assert.throws(() => statsTime(c.text, NOW), c.expected);
    });
  }
});

describe("groupByOf and topOf", () => {
  it("reads the groups in the order given", () => assert.deepEqual(groupByOf("rack, machine_type"), ["RACK", "MACHINE_TYPE"]));
  it("refuses an unknown group, naming it", () => assert.throws(() => groupByOf("rack,colour"), /unknown group "colour"/));
  for (const [text, ok] of [
    ["1", true],
    ["100", true],
    ["0", false],
    ["101", false],
    ["1e2", false],
    ["-3", false],
  ] as const) {
    it(`top ${text}: ${ok ? "taken" : "refused"}`, () => (ok ? assert.equal(topOf(text), Number(text)) : assert.throws(() => topOf(text), /from 1 to 100/)));
  }
});

describe("shortDuration", () => {
  for (const [seconds, expected] of [
    [0, "0s"],
    [45, "45s"],
    [60, "1m"],
    [3900, "1h5m"],
    [7200, "2h"],
    [86_400 * 2 + 3 * 3600 + 59, "2d3h"],
    [-5, "0s"],
  ] as const) {
    it(`${seconds}s reads ${expected}`, () => assert.equal(shortDuration(seconds), expected));
  }
});
