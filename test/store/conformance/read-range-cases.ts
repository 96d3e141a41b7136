import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NOW } from "../../support/fixtures.js";
import { randomPollRecord, readPollRecords, readRemediationRecords, remediationRecordAt } from "../../support/replay-records.js";
import { ACTOR, outcome, type StoreHarness } from "./store-harness.js";

const MINUTE = 60_000;

// Range reads: from a time on, oldest first, at most the limit (written a minute apart from NOW; 4 of each kind).
const RANGES: ReadonlyArray<{ name: string; since: number; limit: number; minutes: readonly number[] }> = [
  { name: "all of them", since: 0, limit: 10, minutes: [0, 1, 2, 3] },
  { name: "from a time on", since: NOW + MINUTE, limit: 10, minutes: [1, 2, 3] },
  { name: "from a time between two records", since: NOW + MINUTE + 1, limit: 10, minutes: [2, 3] },
  { name: "at most the limit, the oldest first", since: 0, limit: 2, minutes: [0, 1] },
  { name: "from a time on, at most the limit", since: NOW + MINUTE, limit: 2, minutes: [1, 2] },
  { name: "a limit of none", since: 0, limit: 0, minutes: [] },
  { name: "from after the newest", since: NOW + 4 * MINUTE, limit: 10, minutes: [] },
];

/** Reads by range: the replay records of each kind apart, from a time on, oldest first, at most a limit. */
export function readRangeCases(h: StoreHarness): void {
  describe("range reads", () => {
    for (const c of RANGES) {
      it(`reads the replay records of each kind apart: ${c.name}`, async () => {
        const store = await h.open();
        for (let i = 0; i < 4; i++) {
          const time = NOW + i * MINUTE;
          await store.enqueue(() => ({ add: [], outcome: () => outcome(i), pollRecord: randomPollRecord(time, 2) }), time, ACTOR);
          await store.enqueue(() => ({ add: [], outcome: null, remediationRecord: remediationRecordAt(time) }), time, ACTOR);
        }
        const times = c.minutes.map((m) => NOW + m * MINUTE);
        const polls = await readPollRecords(store.pollRecords, c.since, c.limit);
        const remediations = await readRemediationRecords(store.pollRecords, c.since, c.limit);
        assert.deepEqual([polls.records.map((r) => r.time), polls.unreadable], [times, 0]);
        assert.deepEqual([remediations.records.map((r) => r.time), remediations.unreadable], [times, 0]);
        assert.deepEqual((await store.pollRecords.stored("intake", c.since, c.limit)).times, times);
      });
    }
  });
}
