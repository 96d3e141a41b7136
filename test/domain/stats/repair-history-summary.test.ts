import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createRepairEntry, type RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { historyRecordFor, type RepairHistoryKind } from "../../../src/domain/queue/repair-history.js";
import { historySummaryOf } from "../../../src/domain/stats/repair-history-summary.js";
import { MIN, T, history } from "./repair-stats-support.js";

describe("historySummaryOf", () => {
  const cases = [
    {
      name: "drained in two steps, then succeeded",
      history: history(1, [
        [0, "queued", 0, "waiting"],
        [1, "processing", 0, "draining"],
        [3, "processing", 0, "watching"],
        [10, "processing", 1, "draining"],
        [15, "processing", 1, "watching"],
        [30, "succeeded", 1, "watching"],
      ]),
      finishedMin: 30,
      expected: { drainingMs: 7 * MIN, stepsNeeded: 2, finalStep: 1 },
    },
    {
      name: "dequeued while queued",
      history: history(2, [
        [0, "queued", 0, "waiting"],
        [5, "queued", 0, "waiting"],
      ]),
      finishedMin: 5,
      expected: { drainingMs: 0, stepsNeeded: 0, finalStep: 0 },
    },
    {
      name: "dequeued while draining: draining counts up to the end",
      history: history(3, [
        [0, "queued", 0, "waiting"],
        [1, "processing", 0, "draining"],
      ]),
      finishedMin: 4,
      expected: { drainingMs: 3 * MIN, stepsNeeded: 1, finalStep: 0 },
    },
    { name: "no record", history: [], finishedMin: 4, expected: { drainingMs: 0, stepsNeeded: 0, finalStep: null } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(historySummaryOf(c.history, T + c.finishedMin * MIN), c.expected));

  // An ended entry is never retried (the decision skips finished entries), so the records that may follow its end are
  // the ones below, each written from the ended entry as it is: none changes what the summary says.
  const after: ReadonlyArray<{ kind: RepairHistoryKind; change: (e: RepairEntry) => RepairEntry }> = [
    { kind: "delete-requested", change: (e) => ({ ...e, deleted: true }) },
    { kind: "backoff-reset", change: (e) => ({ ...e, drainBackoffCount: 0, drainBackoffExpire: null }) },
    { kind: "note", change: (e) => e },
    { kind: "dequeued", change: (e) => e },
  ];
  for (const status of ["succeeded", "failed"] as const) {
    it(`a ${status} repair's summary is the same with every record that may follow its end`, () => {
      const ended: RepairEntry = {
        ...createRepairEntry({ address: "10.0.0.1", machineType: "qemu", operation: "unhealthy", serial: null, source: "sabakan" }, T),
        index: 1,
        status,
        step: 2,
        stepStatus: "draining",
        drainBackoffCount: 3,
      };
      const until = history(1, [
        [0, "queued", 0, "waiting"],
        [1, "processing", 2, "draining"],
        [6, status, 2, "draining"],
      ]);
      const summary = historySummaryOf(until, T + 6 * MIN);
      let entry = ended;
      const records = after.map(({ kind, change }, i) => {
        entry = change(entry);
        return historyRecordFor(entry, kind, kind, T + (20 + i) * MIN, "kintsugi");
      });
      assert.deepEqual(summary, { drainingMs: 5 * MIN, stepsNeeded: 3, finalStep: 2 });
      assert.deepEqual(historySummaryOf([...until, ...records], T + 6 * MIN), summary);
    });
  }
});
