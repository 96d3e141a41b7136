import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Outcome, Skip } from "../../scripts/status-page/model.js";
import { skipRows, type SkipRows } from "../../scripts/status-page/poll-changes.js";

const skip = (serial: string, kind = "RACK_LIMIT"): Skip => ({ serial, address: null, state: "UNHEALTHY", reason: "r", kind, held: false });
const poll = (sequence: string, skipped: Skip[], error: string | null = null): Outcome => ({
  sequence,
  time: "2026-11-27T03:00:00Z",
  trigger: "schedule",
  machinesSeen: 10,
  enqueued: [],
  skipped,
  skippedTotal: skipped.length,
  shortCircuit: null,
  error,
});

describe("skipRows: polls collapsed to what changed", () => {
  // Newest first, as the page keeps them.
  const polls = [
    poll("5", [skip("a"), skip("c")]),
    poll("4", [skip("a"), skip("b")]),
    poll("3", [], "sabakan is unreachable"),
    poll("2", [skip("a"), skip("b")]),
    poll("1", [skip("a"), skip("b", "HELD")]),
  ];
  const cases: ReadonlyArray<{ name: string; i: number; rows: SkipRows }> = [
    { name: "the newest poll lists every skip", i: 0, rows: { kind: "all", skips: [skip("a"), skip("c")] } },
    {
      name: "an older poll with the same skips as the poll that worked before it (a failed one between) has no change",
      i: 1,
      rows: { kind: "changes", since: "2", changes: [] },
    },
    { name: "a failed poll is compared with nothing", i: 2, rows: { kind: "none" } },
    {
      name: "the same machine skipped for another reason is a change",
      i: 3,
      rows: {
        kind: "changes",
        since: "1",
        changes: [
          { change: "new", skip: skip("b") },
          { change: "gone", skip: skip("b", "HELD") },
        ],
      },
    },
    { name: "the oldest listed has nothing to compare with", i: 4, rows: { kind: "none" } },
  ];
  for (const { name, i, rows } of cases) {
    it(name, () => assert.deepEqual(skipRows(polls, i), rows));
  }

  it("a poll after a failed one is compared with the last poll that worked", () => {
    assert.deepEqual(skipRows([poll("3", []), poll("2", [], "down"), poll("1", [skip("a")])].slice(0), 0), { kind: "all", skips: [] });
    assert.deepEqual(skipRows([poll("4", []), poll("3", [skip("a"), skip("z")]), poll("2", [], "down"), poll("1", [skip("a")])], 1), {
      kind: "changes",
      since: "1",
      changes: [{ change: "new", skip: skip("z") }],
    });
  });
});
