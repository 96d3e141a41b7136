import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { KindCount, Outcome } from "../../scripts/status-page/model.js";
import { kindChanges, kindsLine, type KindChanges } from "../../scripts/status-page/poll-changes.js";

const poll = (sequence: string, byKind: KindCount[], error: string | null = null): Outcome => ({
  sequence,
  time: "2026-11-27T03:00:00Z",
  trigger: "schedule",
  machinesSeen: 10_000,
  enqueued: [],
  skipped: [],
  skippedTotal: byKind.reduce((n, k) => n + k.machines, 0),
  skippedByKind: byKind,
  shortCircuit: null,
  error,
});
const kind = (k: string, machines: number): KindCount => ({ kind: k, machines });

describe("kindChanges: each poll's skips by reason, with the change since the poll before", () => {
  // Newest first, as the page keeps them.
  const polls = [
    poll("5", [kind("QUEUE_LIMIT", 1003), kind("RACK_LIMIT", 30)]),
    poll("4", [kind("QUEUE_LIMIT", 1000), kind("HELD", 2)]),
    poll("3", [], "sabakan is unreachable"),
    poll("2", [kind("QUEUE_LIMIT", 1000), kind("HELD", 2)]),
    poll("1", [kind("HELD", 1)]),
  ];
  const cases: ReadonlyArray<{ name: string; i: number; changes: KindChanges; line: string }> = [
    {
      name: "a reason that grew, one that appeared, one that is gone (listed with 0)",
      i: 0,
      changes: {
        since: "4",
        kinds: [
          { kind: "QUEUE_LIMIT", machines: 1003, change: 3 },
          { kind: "RACK_LIMIT", machines: 30, change: 30 },
          { kind: "HELD", machines: 0, change: -2 },
        ],
      },
      line: "queue_limit 1,003 (+3), rack_limit 30 (+30), held 0 (-2)",
    },
    {
      name: "the same counts as the poll that worked before it (a failed one between): no change shown",
      i: 1,
      changes: {
        since: "2",
        kinds: [
          { kind: "QUEUE_LIMIT", machines: 1000, change: 0 },
          { kind: "HELD", machines: 2, change: 0 },
        ],
      },
      line: "queue_limit 1,000, held 2",
    },
    { name: "a failed poll is compared with nothing", i: 2, changes: { since: null, kinds: [] }, line: "" },
    {
      name: "the oldest listed has nothing to compare with",
      i: 4,
      changes: { since: null, kinds: [{ kind: "HELD", machines: 1, change: null }] },
      line: "held 1",
    },
    { name: "past the list", i: 5, changes: { since: null, kinds: [] }, line: "" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.deepEqual(kindChanges(polls, c.i), c.changes);
      assert.equal(kindsLine(c.changes), c.line);
    });
  }
});
