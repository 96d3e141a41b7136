import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { WaitingFor } from "../../../src/domain/queue/repair-wait.js";
import { waitCycles, withWaitCycles } from "../../../src/domain/queue/wait-cycles.js";

/** Waits by index: `[index, entryIndex]` pairs, undefined for a wait that names no entry. */
const waits = (...edges: Array<[number, number | undefined]>): Map<number, WaitingFor> =>
  new Map(
    edges.map(([index, named]) => [
      index,
      { kind: "CONTROL_PLANE", message: `wait of ${index}`, until: null, domain: null, ...(named !== undefined && { entryIndex: named }) },
    ]),
  );

const CASES: Array<{ name: string; waits: Map<number, WaitingFor>; want: number[][] }> = [
  { name: "no waits, no cycle", waits: waits(), want: [] },
  { name: "a chain that ends at an entry that waits for nothing named", waits: waits([1, 2], [2, 3], [3, undefined]), want: [] },
  { name: "a chain that ends at an entry that does not wait (it moves)", waits: waits([1, 2], [2, 9]), want: [] },
  { name: "two entries waiting for each other", waits: waits([1, 2], [2, 1]), want: [[1, 2]] },
  { name: "a cycle of three, given from its middle, starts at its lowest index", waits: waits([7, 3], [3, 5], [5, 7]), want: [[3, 5, 7]] },
  { name: "an entry waiting for a cycle is not in it", waits: waits([1, 2], [2, 3], [3, 2]), want: [[2, 3]] },
  {
    name: "two separate cycles, sorted",
    waits: waits([8, 9], [9, 8], [1, 4], [4, 1]),
    want: [
      [1, 4],
      [8, 9],
    ],
  },
  { name: "an entry naming itself is a cycle of one", waits: waits([4, 4]), want: [[4]] },
];

describe("waitCycles", () => {
  for (const c of CASES) it(c.name, () => assert.deepEqual(waitCycles(c.waits), c.want));
});

describe("withWaitCycles", () => {
  it("says so on every entry of a cycle, keeps what each names, and leaves the others alone", () => {
    const marked = withWaitCycles(waits([1, 2], [2, 1], [3, 1], [4, undefined]));
    assert.equal(
      marked.get(1)?.message,
      "wait of 1; entries 1 and 2 wait for each other: neither moves until one of them recovers, is repaired by hand or is deleted",
    );
    assert.equal(
      marked.get(2)?.message,
      "wait of 2; entries 1 and 2 wait for each other: neither moves until one of them recovers, is repaired by hand or is deleted",
    );
    assert.deepEqual([marked.get(1)?.entryIndex, marked.get(2)?.entryIndex], [2, 1]);
    assert.equal(marked.get(3)?.message, "wait of 3");
    assert.equal(marked.get(4)?.message, "wait of 4");
  });
  it("names every entry of a longer cycle", () => {
    assert.match(withWaitCycles(waits([1, 2], [2, 3], [3, 1])).get(2)?.message ?? "", /; entries 1, 2 and 3 wait for each other: none of them moves until/);
  });
});
