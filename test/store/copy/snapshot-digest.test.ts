import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { checkSnapshotItem, SnapshotDigest } from "../../../src/store/copy/snapshot-digest.js";
import { stableJson } from "../../../src/domain/cluster/stable-json.js";
import { SnapshotSourceError, type SnapshotItem } from "../../../src/store/copy/store-snapshot.js";
import type { SnapshotCounters } from "../../../src/store/copy/snapshot-digest.js";
import { NOW } from "../../support/fixtures.js";
import { randomPollRecord, remediationRecordAt } from "../../support/replay-records.js";
import type { RemediationRecord } from "../../../src/domain/replay/remediation-record.js";
import { newEntry } from "../conformance/store-harness.js";

const entry = (index: number): SnapshotItem => ({ kind: "entry", entry: { ...newEntry(`10.0.0.${index}`), index } });
const record = (entryIndex: number, sequence: number): SnapshotItem => ({
  kind: "history",
  record: {
    sequence,
    entryIndex,
    time: NOW,
    kind: "created",
    reason: "added",
    detail: null,
    status: "queued",
    step: 0,
    stepStatus: "waiting",
    deleted: false,
    actor: "alice",
  },
});
const finished = (entryIndex: number, sequence: number): SnapshotItem => ({
  kind: "finished",
  finished: {
    sequence,
    entryIndex,
    address: `10.0.0.${entryIndex}`,
    machineType: "qemu",
    operation: "unreachable",
    source: "sabakan",
    createdAt: NOW,
    finishedAt: NOW + 1000,
    status: "succeeded",
    proof: null,
  },
});
const replay = (sequence: number, time = NOW): SnapshotItem => ({ kind: "replay", replay: { sequence, area: "intake", record: randomPollRecord(time, 2) } });
const setting = (name: string, value: unknown = true): SnapshotItem => ({ kind: "setting", name, value });
const counters = (c: Partial<SnapshotCounters> = {}): SnapshotItem => ({
  kind: "counters",
  counters: { nextIndex: 10, nextHistorySequence: 10, nextOutcomeSequence: 1, nextGenerationSequence: 1, ...c },
});

function digestOf(items: readonly SnapshotItem[]) {
  const digest = new SnapshotDigest("the source");
  for (const item of items) digest.add(item);
  return digest.summary();
}

describe("the snapshot digest", () => {
  it("serializes a value the same whatever the order of its fields (the cluster generator's stable JSON)", () => {
    assert.equal(stableJson({ b: [2, { d: 1, c: null }], a: "x", skipped: undefined }), '{"a":"x","b":[2,{"c":null,"d":1}]}');
    assert.equal(stableJson({ a: "x", b: [2, { c: null, d: 1 }] }), stableJson({ b: [2, { d: 1, c: null }], a: "x" }));
  });

  it("hashes two snapshots of the same data alike, and counts each aggregate", () => {
    const items = [setting("auto-repair-enabled", false), entry(2), record(2, 1), record(2, 3), finished(1, 3), replay(4), replay(7), counters()];
    const reordered = items.map(
      (item) =>
        JSON.parse(
          JSON.stringify(item, (_, v: unknown) => (v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)),
        ) as SnapshotItem,
    );
    const summary = digestOf(items);
    assert.deepEqual(summary, digestOf(reordered));
    assert.deepEqual(summary.counts, { settings: 1, entries: 1, history: 2, outcomes: 0, generations: 0, holds: 0, finished: 1, replayRecords: 2 });
  });

  const differences: Array<[string, SnapshotItem[]]> = [
    ["a setting's value", [setting("auto-repair-enabled", true), entry(2), record(2, 1), record(2, 3), counters()]],
    [
      "an entry's field",
      [
        setting("auto-repair-enabled", false),
        { kind: "entry", entry: { ...newEntry("10.0.0.2"), index: 2, nodename: "n" } },
        record(2, 1),
        record(2, 3),
        counters(),
      ],
    ],
    ["a missing history record", [setting("auto-repair-enabled", false), entry(2), record(2, 3), counters()]],
    ["a finished-repair record", [setting("auto-repair-enabled", false), entry(2), record(2, 1), record(2, 3), finished(1, 3), counters()]],
    ["a replay record", [setting("auto-repair-enabled", false), entry(2), record(2, 1), record(2, 3), replay(1), counters()]],
    ["a counter", [setting("auto-repair-enabled", false), entry(2), record(2, 1), record(2, 3), counters({ nextIndex: 11 })]],
  ];
  for (const [name, items] of differences) {
    it(`hashes differently when ${name} differs`, () => {
      const base = digestOf([setting("auto-repair-enabled", false), entry(2), record(2, 1), record(2, 3), counters()]);
      assert.notEqual(digestOf(items).sha256, base.sha256);
    });
  }

  const refused: Array<[string, SnapshotItem[], RegExp]> = [
    ["entries out of order", [entry(3), entry(2), counters()], /^the source: repair entry 2 is out of order or repeated$/],
    ["a repeated entry", [entry(2), entry(2), counters()], /^the source: repair entry 2 is out of order or repeated$/],
    ["history out of order within an index", [record(2, 5), record(2, 4), counters()], /history record 4 \(repair entry 2\) is out of order/],
    ["a setting after the entries", [entry(2), setting("x"), counters()], /^the source: setting x is out of order or repeated$/],
    ["an item after the counters", [counters(), entry(2)], /^the source: repair entry 2 comes after the counters$/],
    [
      "a next index at an index in use",
      [entry(4), counters({ nextIndex: 4 })],
      /^the source: the next index is 4, but 4 is already used: a copy would hand it out again$/,
    ],
    ["a next index at an index only the history knows", [record(10, 1), counters()], /^the source: the next index is 10, but 10 is already used/],
    ["a next history sequence at one in use", [record(2, 12), counters()], /^the source: the next history sequence is 10, but 12 is already used/],
    [
      "a next history sequence at one a finished-repair record holds",
      [finished(2, 12), counters()],
      /^the source: the next history sequence is 10, but 12 is already used/,
    ],
    ["finished-repair records out of order", [finished(2, 5), finished(1, 4), counters()], /finished-repair record 4 \(repair entry 1\) is out of order/],
    ["replay records out of order", [replay(5), replay(4), counters()], /^the source: replay record 4 \(a poll's intake\) is out of order or repeated$/],
    ["a replay record before the finished repairs", [replay(5), finished(2, 5), counters()], /finished-repair record 5 \(repair entry 2\) is out of order/],
  ];
  for (const [name, items, message] of refused) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => digestOf(items),
        (err: Error) => err instanceof SnapshotSourceError && message.test(err.message),
      );
    });
  }

  it("refuses a snapshot without counters", () => {
    assert.throws(
      () => digestOf([entry(1)]),
      (err: Error) => err.message === "the source: the snapshot ended without its counters",
    );
  });

  const invalid: Array<[string, SnapshotItem, RegExp]> = [
    [
      "an entry with an unknown status",
      { kind: "entry", entry: { ...newEntry("10.0.0.1"), index: 1, status: "lost" as "queued" } },
      /^the source: repair entry 1 cannot be copied: entry\.status: /,
    ],
    [
      "a history record with index 0",
      { kind: "history", record: { ...(record(1, 1) as { record: object }).record, entryIndex: 0 } } as SnapshotItem,
      /^the source: history record 1 \(repair entry 0\) cannot be copied: record\.entryIndex: /,
    ],
    ["a setting that is not JSON", { kind: "setting", name: "x", value: undefined }, /^the source: setting x cannot be copied: value: /],
    [
      "a replay record whose enqueued addresses are not a list",
      { kind: "replay", replay: { sequence: 3, area: "intake", record: { ...randomPollRecord(NOW, 2), enqueued: "x" as unknown as string[] } } },
      /^the source: replay record 3 \(a poll's intake\) cannot be copied: replay\.record\.enqueued: /,
    ],
    ["counters at 0", counters({ nextIndex: 0 }), /^the source: the counters cannot be copied: counters\.nextIndex: /],
  ];
  for (const [name, item, message] of invalid) {
    it(`refuses ${name}, naming it`, () => {
      assert.throws(
        () => checkSnapshotItem(item, "the source"),
        (err: Error) => err instanceof SnapshotSourceError && message.test(err.message),
      );
    });
  }

  it("drops fields the stores do not keep", () => {
    const extra = { kind: "entry", entry: { ...newEntry("10.0.0.1"), index: 1, extra: "x" } } as SnapshotItem;
    assert.deepEqual(checkSnapshotItem(extra, "the source"), entry(1));
    const record = remediationRecordAt(NOW);
    const newer = { kind: "replay", replay: { sequence: 3, area: "health-check", record: { ...record, extra: 1 } as RemediationRecord } } as const;
    assert.deepEqual(checkSnapshotItem(newer, "the source"), { kind: "replay", replay: { sequence: 3, area: "health-check", record } });
  });
});
