import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MirroredRecords } from "../../src/store/core/mirrored-records.js";
import type { RecordArea, RecordKey } from "../../src/store/core/store-keys.js";

const T = Date.parse("2026-11-01T00:00:00Z");
const MIN = 60_000;

/** Record `sequence` of `area`, a minute after the one before, of `bytes` bytes. */
const rec = (sequence: number, area: RecordArea = "intake", bytes = 100): RecordKey => ({ area, sequence, time: T + sequence * MIN, bytes });

type Step = { readonly put: RecordKey } | { readonly delete: number };

/** The columns' answers, compared with what a plain list of the same records answers. */
function answers(steps: readonly Step[]) {
  const records = new MirroredRecords();
  for (const step of steps) {
    if ("put" in step) records.put(step.put);
    else records.delete(step.delete);
  }
  return {
    size: records.size(),
    newest: records.newest(),
    intake: records.since("intake", 0, Number.MAX_SAFE_INTEGER).map((r) => r.sequence),
    checks: records.since("health-check", 0, Number.MAX_SAFE_INTEGER).map((r) => r.sequence),
  };
}

/** What a plain map of the same steps holds (the model the columns must agree with). */
function model(steps: readonly Step[]) {
  const kept = new Map<number, RecordKey>();
  for (const step of steps) {
    if ("put" in step) kept.set(step.put.sequence, step.put);
    else kept.delete(step.delete);
  }
  const all = [...kept.values()].sort((a, b) => a.sequence - b.sequence);
  return {
    size: { records: all.length, bytes: all.reduce((n, r) => n + r.bytes, 0) },
    newest: all.at(-1)?.sequence ?? 0,
    intake: all.filter((r) => r.area === "intake").map((r) => r.sequence),
    checks: all.filter((r) => r.area === "health-check").map((r) => r.sequence),
  };
}

const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);

describe("the replay records the mirror keeps by key (in columns)", () => {
  const cases: ReadonlyArray<{ readonly name: string; readonly steps: readonly Step[] }> = [
    { name: "nothing", steps: [] },
    { name: "appended in order", steps: range(1, 6).map((s) => ({ put: rec(s) })) },
    {
      name: "the initial read: one kind, then the other, their sequences interleaved",
      steps: [...[1, 3, 5, 7].map((s) => ({ put: rec(s) })), ...[2, 4, 6].map((s) => ({ put: rec(s, "health-check") }))],
    },
    { name: "a sequence put twice: the later put stays", steps: [{ put: rec(1) }, { put: rec(2) }, { put: rec(2, "intake", 7) }] },
    {
      name: "a sequence put twice while out of order",
      steps: [{ put: rec(5) }, { put: rec(2) }, { put: rec(2, "health-check", 9) }, { put: rec(3) }],
    },
    { name: "the oldest deleted (pruning)", steps: [...range(1, 6).map((s) => ({ put: rec(s) })), { delete: 1 }, { delete: 2 }] },
    { name: "one in the middle deleted", steps: [...range(1, 6).map((s) => ({ put: rec(s) })), { delete: 3 }, { put: rec(6) }] },
    { name: "every record deleted, then one put", steps: [{ put: rec(1) }, { put: rec(2) }, { delete: 2 }, { delete: 1 }, { put: rec(3) }] },
    { name: "a deleted sequence put again", steps: [{ put: rec(1) }, { put: rec(2) }, { delete: 1 }, { put: rec(1, "intake", 5) }] },
    { name: "an unknown sequence deleted", steps: [{ put: rec(1) }, { delete: 9 }] },
    {
      name: "a year's worth in small: appended past the first columns, the oldest half pruned, appended again",
      steps: [
        ...range(1, 5001).map((s) => ({ put: rec(s) })),
        ...range(1, 2501).map((s) => ({ delete: s })),
        ...range(5001, 7001).map((s) => ({ put: rec(s) })),
      ],
    },
    {
      name: "many deleted from the middle (compacted)",
      steps: [...range(1, 4001).map((s) => ({ put: rec(s, s % 2 ? "intake" : "health-check") })), ...range(2, 3500).map((s) => ({ delete: s }))],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(answers(c.steps), model(c.steps)));

  it("since: one kind from a time, oldest first, at most the limit", () => {
    const records = new MirroredRecords();
    for (const s of range(1, 11)) records.put(rec(s, s % 2 ? "intake" : "health-check"));
    assert.deepEqual(records.since("intake", T + 4 * MIN, 2), [rec(5), rec(7)]);
  });

  it("prune: the oldest, while older than the cutoff or over the bytes with the new record", () => {
    const records = new MirroredRecords();
    for (const s of range(1, 7)) records.put(rec(s, s === 2 ? "health-check" : "intake", 100));
    assert.deepEqual(records.prune(0, T + 3 * MIN, 10_000), { intake: 1, "health-check": 2 });
    // 600 kept + 150 new past 500: the oldest go until 500 fits.
    assert.deepEqual(records.prune(150, 0, 500), { intake: 3, "health-check": 2 });
    assert.deepEqual(records.prune(0, 0, 10_000), {});
  });
});
