import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { parseGoDuration } from "../../src/config/go-duration.js";

describe("parseGoDuration reads Go's time.ParseDuration format", () => {
  const cases: { name: string; text: string; ms: number | null }[] = [
    { name: "etcdutil's default", text: "2s", ms: 2000 },
    { name: "milliseconds", text: "500ms", ms: 500 },
    { name: "minutes and seconds", text: "1m30s", ms: 90_000 },
    { name: "hours, minutes, seconds", text: "1h2m3s", ms: 3_723_000 },
    { name: "a fraction", text: "1.5s", ms: 1500 },
    { name: "a fraction without a leading digit", text: ".5s", ms: 500 },
    { name: "a trailing dot", text: "2.s", ms: 2000 },
    { name: "microseconds as us", text: "1500us", ms: 1.5 },
    { name: "microseconds with the micro sign", text: "1000\u00b5s", ms: 1 },
    { name: "microseconds with the Greek mu", text: "1000\u03bcs", ms: 1 },
    { name: "nanoseconds", text: "2000000ns", ms: 2 },
    { name: "zero without a unit", text: "0", ms: 0 },
    { name: "an explicit plus", text: "+3s", ms: 3000 },
    { name: "a minus", text: "-3s", ms: -3000 },
    { name: "a number without a unit", text: "2", ms: null },
    { name: "an empty text", text: "", ms: null },
    { name: "a sign alone", text: "-", ms: null },
    { name: "an unknown unit", text: "2d", ms: null },
    { name: "a unit without a number", text: "s", ms: null },
    { name: "a dot without digits", text: ".s", ms: null },
    { name: "a space inside", text: "2 s", ms: null },
    { name: "trailing garbage", text: "2sx", ms: null },
    { name: "leading garbage", text: "x2s", ms: null },
    { name: "an upper-case unit", text: "2S", ms: null },
  ];
  for (const { name, text, ms } of cases) {
    it(name, () => {
      assert.equal(parseGoDuration(text), ms);
    });
  }
});
