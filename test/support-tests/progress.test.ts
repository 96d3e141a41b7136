import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { progressLines } from "../../src/cli/progress-lines.js";
import { describeProgress, progressCounter, type ProgressReport } from "../../src/support/progress.js";

/** Drives a counter of `total` on a clock the steps move: each step is [ms after the start, done so far]. */
function reports(total: number, steps: ReadonlyArray<[number, number]>, finishAt: number): ProgressReport[] {
  let now = 0;
  const seen: ProgressReport[] = [];
  const counter = progressCounter(
    total,
    (p) => seen.push(p),
    () => now,
    1_000,
  );
  for (const [at, done] of steps) {
    now = at;
    counter.update(done);
  }
  now = finishAt;
  counter.finish();
  return seen;
}

describe("progressCounter: done and time left, at most once a second and at the end", () => {
  const cases: ReadonlyArray<{ name: string; total: number; steps: ReadonlyArray<[number, number]>; finishAt: number; expected: string[] }> = [
    {
      name: "a steady rate: the time left is the elapsed time scaled by what is left",
      total: 1_000_000,
      steps: [
        [500, 100_000],
        [1_000, 200_000],
        [2_000, 400_000],
        [2_500, 500_000],
      ],
      finishAt: 5_000,
      expected: ["200,000 of 1,000,000 rows (20%), 4 s left", "400,000 of 1,000,000 rows (40%), 3 s left", "500,000 rows, done in 5 s"],
    },
    {
      name: "nothing done yet when the second comes: the time left is not guessed",
      total: 10,
      steps: [[1_000, 0]],
      finishAt: 1_200,
      expected: ["0 of 10 rows (0%), time left unknown yet", "0 rows, done in 1 s"],
    },
    {
      name: "work shorter than a second: only the end",
      total: 5,
      steps: [
        [10, 1],
        [20, 5],
      ],
      finishAt: 30,
      expected: ["5 rows, done in 0 s"],
    },
    {
      name: "a long one: minutes and seconds",
      total: 100,
      steps: [[60_000, 25]],
      finishAt: 250_000,
      expected: ["25 of 100 rows (25%), 3 min 0 s left", "25 rows, done in 4 min 10 s"],
    },
    {
      name: "more done than the estimate said: never past 100%",
      total: 10,
      steps: [[1_000, 12]],
      finishAt: 1_000,
      expected: ["12 of 10 rows (100%), 0 s left", "12 rows, done in 1 s"],
    },
  ];
  for (const c of cases)
    it(c.name, () =>
      assert.deepEqual(
        reports(c.total, c.steps, c.finishAt).map((p) => describeProgress("rows", p)),
        c.expected,
      ),
    );
});

describe("progressLines: the CLI's progress on stderr", () => {
  const middle: ProgressReport = { done: 50, total: 100, elapsedMs: 2_000, leftMs: 2_000, finished: false };
  const end: ProgressReport = { done: 100, total: 100, elapsedMs: 4_000, leftMs: 0, finished: true };
  const cases: ReadonlyArray<[string, boolean, string]> = [
    ["on a pipe or a log: a plain line each time", false, "copying: 50 of 100 items (50%), 2 s left\ncopying: 100 items, done in 4 s\n"],
    [
      "on a terminal: one line rewritten in place, ended at the end",
      true,
      "\r\x1b[Kcopying: 50 of 100 items (50%), 2 s left\r\x1b[Kcopying: 100 items, done in 4 s\n",
    ],
  ];
  for (const [name, terminal, expected] of cases) {
    it(name, () => {
      let written = "";
      const report = progressLines("copying", "items", (text) => (written += text), terminal);
      report(middle);
      report(end);
      assert.equal(written, expected);
    });
  }
});
