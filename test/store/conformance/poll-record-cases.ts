import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_POLL_RECORDS } from "../../../src/config/poll-records-schema.js";
import { decideIntake, type IntakeInput } from "../../../src/domain/intake/auto-repair-intake.js";
import { recordPoll, type PollRecord } from "../../../src/domain/replay/poll-record.js";
import type { SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { decodePollRecord, decodeRemediationRecord } from "../../../src/store/poll-record-schema.js";
import { NOW } from "../../support/fixtures.js";
import { readPollRecords, readRemediationRecords, remediationRecordAt } from "../../support/replay-records.js";
import { until } from "../../support/until.js";
import { ACTOR, newEntry, outcome, type StoreHarness } from "./store-harness.js";

const HOUR = 3_600_000;
const machine = (i: number): SabakanMachine => ({
  serial: `SN${String(i).padStart(8, "0")}`,
  rack: Math.floor(i / 29),
  indexInRack: i % 29,
  role: "cs",
  ipv4: [`10.${Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`],
  bmcType: "IPMI-2.0",
  state: "UNHEALTHY",
  durationSeconds: 60 + ((i * 37) % 5_000),
  stateSince: NOW,
  registerDate: 0,
  retireDate: 0,
  labels: {},
});
/** The record of a poll at `time` that found `machines` unhealthy machines (the queue limit keeps it to 5 entries). */
const pollAt = (time: number, machines = 1): PollRecord => {
  const input: IntakeInput = {
    machines: Array.from({ length: machines }, (_, i) => machine(i + 1)),
    entries: [],
    nodes: new Map(),
    constraints: { maximumRepairQueueEntries: 5, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 },
  };
  return recordPoll(input, decideIntake(input), time);
};
const record = pollAt(NOW);
const remediation = remediationRecordAt(NOW + 1);

/** A poll's write: no entry, its outcome and its record (what the poller commits when it enqueues nothing). */
const poll = (store: KintsugiStore, r: PollRecord) => store.enqueue(() => ({ add: [], outcome: () => outcome(1), pollRecord: r }), r.time, ACTOR);

/** The replay records (the what-if replay's input): written with the poll's or check's write, or not at all. */
export function pollRecordCases(h: StoreHarness): void {
  describe("replay records", () => {
    it("keeps a poll's record in the poll's own write, and a health check's in its remediation's, across a restart", async () => {
      const store = await h.open();
      await store.enqueue(() => ({ add: [{ entry: newEntry("10.0.0.1"), reason: "r" }], outcome: () => outcome(1), pollRecord: record }), NOW, ACTOR);
      // A check that enqueued nothing still keeps its record (no entry, no outcome: the record alone is written).
      await store.enqueue(() => ({ add: [], outcome: null, remediationRecord: remediation }), NOW + 1, ACTOR);
      assert.deepEqual(await readPollRecords(store.pollRecords, 0, 10), { records: [record], unreadable: 0 });
      assert.deepEqual(await readRemediationRecords(store.pollRecords, 0, 10), { records: [remediation], unreadable: 0 });
      assert.deepEqual(await readPollRecords(store.pollRecords, NOW + 1, 10), { records: [], unreadable: 0 }, "none at or after a later since");
      const reopened = await h.reopen();
      assert.deepEqual(await readPollRecords(reopened.pollRecords, 0, 10), { records: [record], unreadable: 0 });
      assert.deepEqual(await readRemediationRecords(reopened.pollRecords, 0, 10), { records: [remediation], unreadable: 0 });
      assert.equal(reopened.pollRecords.size().records, 2);
    });

    it("hands the records as stored, undecoded, with the times their keys say, for the replay's worker to decode", async () => {
      const store = await h.open();
      const later = pollAt(NOW + 2, 3);
      await poll(store, record);
      await store.enqueue(() => ({ add: [], outcome: null, remediationRecord: remediation }), NOW + 1, ACTOR);
      await poll(store, later);
      const polls = await store.pollRecords.stored("intake", 0, 10);
      assert.deepEqual(
        polls.bodies.map((b) => decodePollRecord(b)),
        [
          { ok: true, record },
          { ok: true, record: later },
        ],
      );
      assert.equal(polls.unreadable, 0);
      // SQLite keeps the time in its row, etcd in the key: either way it is the record's.
      assert.deepEqual(polls.times, [NOW, NOW + 2]);
      const remediations = await store.pollRecords.stored("health-check", 0, 10);
      assert.deepEqual([remediations.bodies.map((b) => decodeRemediationRecord(b)), remediations.times], [[{ ok: true, record: remediation }], [NOW + 1]]);
      assert.deepEqual((await store.pollRecords.stored("intake", NOW + 1, 10)).times, [NOW + 2], "from since on");
      assert.deepEqual((await store.pollRecords.stored("intake", 0, 1)).times, [NOW], "at most limit, oldest first");
    });

    it("keeps no record of a write that did not commit", async () => {
      const store = await h.open();
      await assert.rejects(
        store.enqueue(
          () => ({
            add: [{ entry: newEntry("10.0.0.1"), reason: "r" }],
            outcome: () => {
              throw new Error("the outcome failed");
            },
            pollRecord: record,
          }),
          NOW,
          ACTOR,
        ),
        /the outcome failed/,
      );
      assert.deepEqual(await readPollRecords(store.pollRecords, 0, 10), { records: [], unreadable: 0 });
      assert.deepEqual(store.pollRecords.size(), { records: 0, bytes: 0 });
    });

    it("drops the records older than keep_days with the write that passes them", async () => {
      const store = await h.open({ pollRecords: { ...DEFAULT_POLL_RECORDS, keepSeconds: 1_800 } });
      const old = [pollAt(NOW - 3 * HOUR), pollAt(NOW - 2 * HOUR)];
      for (const r of old) await poll(store, r);
      assert.deepEqual((await readPollRecords(store.pollRecords, 0, 10)).records, [old[1]], "the older one went with the newer one's write");
      await poll(store, record);
      assert.deepEqual(await readPollRecords(store.pollRecords, 0, 10), { records: [record], unreadable: 0 });
      assert.equal(store.pollRecords.size().records, 1);
    });

    it("drops the oldest records once the kept ones pass max_bytes, both kinds together", async () => {
      const probe = await h.open();
      await poll(probe, pollAt(NOW - 10));
      const one = probe.pollRecords.size().bytes;
      const store = await h.open({ pollRecords: { ...DEFAULT_POLL_RECORDS, maxBytes: Math.floor(2.5 * one) } });
      const polls = [0, 1, 2, 3].map((i) => pollAt(NOW + i));
      for (const r of polls) await poll(store, r);
      assert.deepEqual((await readPollRecords(store.pollRecords, 0, 10)).records, polls.slice(2));
      assert.ok(store.pollRecords.size().bytes <= 2.5 * one, `${store.pollRecords.size().bytes} bytes kept, bound ${2.5 * one}`);
      await store.enqueue(() => ({ add: [], outcome: null, remediationRecord: { ...remediation, time: NOW + 4 } }), NOW + 4, ACTOR);
      assert.deepEqual((await readPollRecords(store.pollRecords, 0, 10)).records, polls.slice(3), "a remediation record counts against the same bound");
      assert.deepEqual(
        (await readPollRecords((await h.reopen({ pollRecords: { ...DEFAULT_POLL_RECORDS, maxBytes: Math.floor(2.5 * one) } })).pollRecords, 0, 10)).records,
        polls.slice(3),
      );
    });

    it("counts a stored value that is not a record as unreadable, and reads the rest", async () => {
      const store = await h.open();
      await poll(store, pollAt(NOW - 1));
      await store.enqueue(() => ({ add: [], outcome: null, remediationRecord: remediation }), NOW + 1, ACTOR);
      await h.corruptPollRecords();
      const reopened = await h.reopen();
      assert.deepEqual(await readPollRecords(reopened.pollRecords, 0, 10), { records: [], unreadable: 1 });
      assert.deepEqual(await readRemediationRecords(reopened.pollRecords, 0, 10), { records: [], unreadable: 1 });
      await poll(reopened, record);
      assert.deepEqual(await readPollRecords(reopened.pollRecords, 0, 10), { records: [record], unreadable: 1 });
    });

    it("keeps the record of a 10,000-machine storm in the poll's write", async () => {
      const store = await h.open();
      const storm = pollAt(NOW, 10_000);
      await poll(store, storm);
      assert.deepEqual(await readPollRecords(store.pollRecords, 0, 10), { records: [storm], unreadable: 0 });
    });

    it("reads the same records on a second instance (what a follower replays)", { skip: h.second ? false : "one instance only" }, async () => {
      const store = await h.open();
      const follower = await h.second!();
      for (const r of [pollAt(NOW - 1), record]) await poll(store, r);
      await store.enqueue(() => ({ add: [], outcome: null, remediationRecord: remediation }), NOW + 1, ACTOR);
      // The leader's write resolves once its own watch has it; the follower's may lag until it has as many records.
      await until(
        "the follower has the three records",
        () => follower.pollRecords.size().records,
        (n) => n === 3,
      );
      assert.deepEqual(await readPollRecords(follower.pollRecords, 0, 10), await readPollRecords(store.pollRecords, 0, 10));
      assert.deepEqual(await readRemediationRecords(follower.pollRecords, 0, 10), await readRemediationRecords(store.pollRecords, 0, 10));
      assert.deepEqual(follower.pollRecords.size(), store.pollRecords.size());
    });
  });
}
