import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Entry } from "../../scripts/status-page/model.js";
import { RepairTimeline, stripHours, type FinishedRepairRecord } from "../../scripts/status-page/timeline.js";

const NOW = Date.parse("2026-11-22T12:00:00Z");
const at = (hoursAgo: number) => new Date(NOW - hoursAgo * 3_600_000).toISOString();

const entry = (index: string, status: string, lastTransitionTime: string | null): Entry => ({
  index,
  address: `10.0.0.${index}`,
  nodename: "",
  machineType: "qemu",
  operation: "unreachable",
  status,
  step: 0,
  stepStatus: "WAITING",
  stepCount: 1,
  deleted: false,
  createdAt: at(30),
  lastTransitionTime,
  failure: status === "FAILED" ? `step 1: repair command failed: exit code 2; stderr: entry ${index}'s BMC did not answer` : null,
  waitingFor: null,
});
const record = (index: number, status: string, hoursAgo: number): FinishedRepairRecord => ({
  index,
  address: `10.0.0.${index}`,
  operation: "unreachable",
  status,
  finishedAt: at(hoursAgo),
  reason: status === "failed" ? `step 1: repair command failed: exit code 2; stderr: record ${index}'s BMC did not answer` : null,
});

type Step = { records: FinishedRepairRecord[]; entries?: Entry[]; limit?: number } | { kind: string; entry: Entry; time: string };

describe("the status page's timeline", () => {
  const cases: ReadonlyArray<{ name: string; steps: Step[]; shown: Array<[index: string, status: string]>; truncated?: boolean }> = [
    {
      name: "the records, newest first, a deleted one as DEQUEUED",
      steps: [{ records: [record(1, "succeeded", 5), record(2, "deleted", 1), record(3, "failed", 3)] }],
      shown: [
        ["2", "DEQUEUED"],
        ["3", "FAILED"],
        ["1", "SUCCEEDED"],
      ],
    },
    {
      name: "an entry that finishes live joins",
      steps: [{ records: [] }, { kind: "TRANSITION", entry: entry("4", "SUCCEEDED", at(0.5)), time: at(0.5) }],
      shown: [["4", "SUCCEEDED"]],
    },
    {
      name: "an entry still running does not",
      steps: [{ records: [] }, { kind: "TRANSITION", entry: entry("4", "PROCESSING", at(0.5)), time: at(0.5) }],
      shown: [],
    },
    {
      name: "an entry dequeued unfinished joins at the dequeue",
      steps: [{ records: [] }, { kind: "DEQUEUED", entry: entry("5", "QUEUED", null), time: at(0.2) }],
      shown: [["5", "DEQUEUED"]],
    },
    {
      name: "a finished entry then dequeued stays as it finished, once",
      steps: [
        { records: [] },
        { kind: "TRANSITION", entry: entry("6", "FAILED", at(2)), time: at(2) },
        { kind: "DEQUEUED", entry: { ...entry("6", "FAILED", at(2)), deleted: true }, time: at(1) },
      ],
      shown: [["6", "FAILED"]],
    },
    {
      name: "a record and the event of the same repair count once",
      steps: [{ records: [record(7, "succeeded", 1)] }, { kind: "TRANSITION", entry: entry("7", "SUCCEEDED", at(1)), time: at(1) }],
      shown: [["7", "SUCCEEDED"]],
    },
    {
      name: "a finished entry in the queue without a record joins",
      steps: [{ records: [record(1, "failed", 2)], entries: [entry("8", "SUCCEEDED", at(3)), entry("9", "QUEUED", null)] }],
      shown: [
        ["1", "FAILED"],
        ["8", "SUCCEEDED"],
      ],
    },
    {
      name: "a reconnection's records replace what was shown",
      steps: [{ records: [record(1, "failed", 2)] }, { records: [record(2, "succeeded", 2)] }],
      shown: [["2", "SUCCEEDED"]],
    },
    { name: "older than a day: left out", steps: [{ records: [record(1, "failed", 25), record(2, "failed", 23)] }], shown: [["2", "FAILED"]] },
    {
      name: "records cut at the limit say so",
      steps: [{ records: [record(1, "failed", 2), record(2, "failed", 1)], limit: 2 }],
      shown: [
        ["2", "FAILED"],
        ["1", "FAILED"],
      ],
      truncated: true,
    },
  ];
  it("why a repair failed: from its record, or from the event of the entry that failed live", () => {
    const timeline = new RepairTimeline();
    timeline.replace([record(1, "failed", 2), record(2, "succeeded", 2)], [], 100);
    timeline.entryEvent("TRANSITION", entry("3", "FAILED", at(1)), at(1));
    assert.deepEqual(
      timeline.lastDay(NOW).map((r) => [r.index, r.reason]),
      [
        ["3", "step 1: repair command failed: exit code 2; stderr: entry 3's BMC did not answer"],
        ["2", null],
        ["1", "step 1: repair command failed: exit code 2; stderr: record 1's BMC did not answer"],
      ],
    );
  });

  for (const c of cases) {
    it(c.name, () => {
      const timeline = new RepairTimeline();
      for (const step of c.steps) {
        if ("records" in step) timeline.replace(step.records, step.entries ?? [], step.limit ?? 100);
        else timeline.entryEvent(step.kind, step.entry, step.time);
      }
      assert.deepEqual(
        timeline.lastDay(NOW).map((r) => [r.index, r.status]),
        c.shown,
      );
      assert.equal(timeline.truncated, c.truncated ?? false);
    });
  }
});

describe("stripHours: how far back the repairs' strip reaches", () => {
  const ended = (hoursAgo: number) => ({
    index: "1",
    address: "10.0.0.1",
    operation: "unreachable",
    status: "SUCCEEDED",
    finishedAt: at(hoursAgo),
    reason: null,
  });
  const cases: ReadonlyArray<{ name: string; hoursAgo: number[]; hours: number }> = [
    { name: "no repair: the last hour", hoursAgo: [], hours: 1 },
    { name: "repairs of the last minutes spread over an hour, not one bar at now", hoursAgo: [0.05, 0.2], hours: 1 },
    { name: "back to the oldest repair, in whole hours", hoursAgo: [0.5, 5.2], hours: 6 },
    { name: "never more than the day", hoursAgo: [30], hours: 24 },
    { name: "a repair dated after now counts as now", hoursAgo: [-2], hours: 1 },
  ];
  for (const { name, hoursAgo, hours } of cases) {
    it(name, () => assert.equal(stripHours(hoursAgo.map(ended), NOW), hours));
  }
});
