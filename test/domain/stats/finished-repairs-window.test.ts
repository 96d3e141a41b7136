import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { finishedSince } from "../../../src/domain/queue/finished-repair.js";
import { finishedRepairsIn, finishedRepairsWindowOf } from "../../../src/domain/stats/finished-repairs-window.js";
import { MIN, T, finished } from "./repair-stats-support.js";

const DAY = 24 * 60 * MIN;
const NOW = T + 10 * DAY;

describe("finishedRepairsWindowOf", () => {
  const cases: ReadonlyArray<{
    name: string;
    since: number;
    until: number | null;
    limit: number | null;
    expected: ReturnType<typeof finishedRepairsWindowOf>;
  }> = [
    {
      name: "until and limit default to now and 1,000",
      since: NOW - DAY,
      until: null,
      limit: null,
      expected: { ok: true, since: NOW - DAY, until: NOW, limit: 1_000 },
    },
    {
      name: "exactly 7 days and 5,000 records",
      since: NOW - 8 * DAY,
      until: NOW - DAY,
      limit: 5_000,
      expected: { ok: true, since: NOW - 8 * DAY, until: NOW - DAY, limit: 5_000 },
    },
    {
      name: "a millisecond over 7 days",
      since: NOW - 7 * DAY - 1,
      until: null,
      limit: null,
      expected: { ok: false, message: "the range from since to until may cover at most 7 days" },
    },
    {
      name: "since after until",
      since: NOW,
      until: NOW - 1,
      limit: null,
      expected: { ok: false, message: `since (${new Date(NOW).toISOString()}) must be before until (${new Date(NOW - 1).toISOString()})` },
    },
    { name: "a limit of 0", since: NOW - DAY, until: null, limit: 0, expected: { ok: false, message: "limit must be from 1 to 5000, got 0" } },
    { name: "a limit over 5,000", since: NOW - DAY, until: null, limit: 5_001, expected: { ok: false, message: "limit must be from 1 to 5000, got 5001" } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(finishedRepairsWindowOf(c.since, c.until, c.limit, NOW), c.expected));
});

describe("finishedRepairsIn", () => {
  // Finished at T+10, T+20 (and T+20, a later sequence), T+30, T+40 minutes.
  const records = finishedSince(
    [finished(1), finished(2, { createdMin: 10 }), finished(3, { createdMin: 10 }), finished(4, { createdMin: 20 }), finished(5, { createdMin: 30 })],
    T,
  );
  const cases: ReadonlyArray<{ name: string; until: number; limit: number; indexes: number[] }> = [
    { name: "newest first, a tie by sequence", until: NOW, limit: 10, indexes: [5, 4, 3, 2, 1] },
    { name: "until is exclusive", until: T + 30 * MIN, limit: 10, indexes: [3, 2, 1] },
    { name: "at most limit, the newest kept", until: NOW, limit: 2, indexes: [5, 4] },
  ];
  for (const c of cases)
    it(c.name, () =>
      assert.deepEqual(
        finishedRepairsIn(records, { until: c.until, limit: c.limit }).map((r) => r.entryIndex),
        c.indexes,
      ),
    );
});
