import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { lowerBound } from "../../../src/domain/shared/sorted-search.js";

describe("lowerBound", () => {
  const values = [1, 3, 3, 5, 8];
  const cases: Array<{ name: string; sought: number; low?: number; high?: number; expected: number }> = [
    { name: "below every value: the start", sought: 0, expected: 0 },
    { name: "a value present: its first position", sought: 3, expected: 1 },
    { name: "between values: where it would go", sought: 4, expected: 3 },
    { name: "above every value: the end", sought: 9, expected: 5 },
    { name: "within a part of the range", sought: 8, low: 1, high: 4, expected: 4 },
    { name: "an empty range: its start", sought: 3, low: 2, high: 2, expected: 2 },
  ];
  for (const c of cases) {
    it(c.name, () =>
      assert.equal(
        lowerBound(c.low ?? 0, c.high ?? values.length, (i) => values[i]! < c.sought),
        c.expected,
      ),
    );
  }
});
