import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { FinishedRepair } from "../../src/domain/queue/finished-repair.js";
import type { RepairHistorySummary } from "../../src/domain/stats/repair-history-summary.js";
import type { RepairTimelinePoint } from "../../src/domain/stats/repair-timeline.js";
import { RepairSummaries } from "../../src/runner/repair-summaries.js";
import { RepairSummaryKeeper } from "../../src/runner/repair-summary-keeper.js";
import type { KintsugiStore, RepairChange, StoreCommit } from "../../src/store/store-port.js";
import { NOW } from "../support/fixtures.js";
import { until } from "../support/until.js";

const MIN = 60_000;

/** A finished record of entry `index`, ended `min` minutes after NOW (sequence = 10 x index). */
function ended(index: number, min = index): FinishedRepair {
  return {
    sequence: index * 10,
    entryIndex: index,
    address: `10.0.0.${index}`,
    machineType: "qemu",
    operation: "unhealthy",
    source: "sabakan",
    createdAt: NOW,
    finishedAt: NOW + min * MIN,
    status: "succeeded",
    proof: null,
  };
}

/** Drained a minute, watched a minute, succeeded: the history every entry of the fake has. */
function history(index: number): RepairTimelinePoint[] {
  const end = NOW + index * MIN;
  return [
    { time: NOW, status: "queued", step: 0, stepStatus: "waiting" },
    { time: end - 2 * MIN, status: "processing", step: 0, stepStatus: "draining" },
    { time: end - MIN, status: "processing", step: 0, stepStatus: "watching" },
    { time: end, status: "succeeded", step: 0, stepStatus: "watching" },
  ] as RepairTimelinePoint[];
}

/** A committed change of entry `index`: its repair ends (processing to succeeded), it moves a step on, or it is added. */
function change(index: number, kind: "ends" | "steps" | "added"): RepairChange {
  const processing = { index, status: "processing", step: 0 };
  const [previous, entry] =
    kind === "added"
      ? [null, { ...processing, status: "queued" }]
      : [processing, kind === "ends" ? { ...processing, status: "succeeded" } : { ...processing, step: 1 }];
  const record = { sequence: index * 10, entryIndex: index, kind: kind === "added" ? "created" : "transition" };
  return { entry, previous, record } as unknown as RepairChange;
}

/** The ports the keeper uses, in memory: what it read and what it stored are kept for the cases to look at. */
function fakeStore(records: FinishedRepair[], options: { failReads?: boolean; tooLong?: ReadonlySet<number>; gate?: Promise<void> } = {}) {
  const stored = new Map<number, RepairHistorySummary | null>();
  const reads: Array<[number, number, number]> = [];
  const writes: number[][] = [];
  const listeners = new Set<(commit: StoreCommit) => void>();
  /** How many records the keeper looked at: each one listed, each one asked for by its entry. */
  const looked = { records: 0 };
  const byIndex = new Map<number, FinishedRepair>();
  /** What the store's `kept()` answers: the same array until a record is added or a summary stored, as the mirror's. */
  let version: { readonly records: number; readonly stored: number; readonly kept: readonly FinishedRepair[] } | null = null;
  const store: Pick<KintsugiStore, "entries" | "finished" | "onCommit"> = {
    entries: {
      timelines: async (first: number, last: number, limit: number) => {
        reads.push([first, last, limit]);
        await options.gate;
        if (options.failReads) throw new Error("the store is away");
        const timelines = new Map(records.filter((r) => r.entryIndex >= first && r.entryIndex <= last).map((r) => [r.entryIndex, history(r.entryIndex)]));
        // A repair with too long a history: the bounded read ends before it, as the store's does.
        if (options.tooLong?.has(first)) return { timelines: new Map(), completeThrough: first - 1 };
        return { timelines, completeThrough: last };
      },
    } as unknown as KintsugiStore["entries"],
    finished: {
      list: () => {
        looked.records += records.length;
        return [...records];
      },
      kept: () => {
        if (version?.records !== records.length || version.stored !== stored.size)
          version = { records: records.length, stored: stored.size, kept: Object.freeze([...records]) };
        return version.kept;
      },
      ofEntry: (index: number) => {
        looked.records++;
        if (byIndex.size !== records.length) for (const r of records) byIndex.set(r.entryIndex, r);
        return byIndex.get(index);
      },
      summaryOf: (sequence: number) => stored.get(sequence),
      storeSummaries: async (summaries) => {
        writes.push(summaries.map((s) => s.sequence));
        for (const s of summaries) stored.set(s.sequence, s.summary);
        return summaries.length;
      },
    },
    onCommit: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
  /** A commit that changes entry `index`: by default one that ends its repair (the store writes its record with it). */
  const commit = (index = 0, kind: Parameters<typeof change>[1] = "ends") => {
    for (const l of listeners) l({ entries: [change(index, kind)], outcome: null, generation: null, settings: [] });
  };
  return { store, stored, reads, writes, commit, listeners, looked };
}

describe("RepairSummaryKeeper (the leader stores each ended repair's summary)", () => {
  it("summarizes every kept record not summarized yet, oldest index first, in one read and one write", async () => {
    const fake = fakeStore([ended(3), ended(1), ended(2)]);
    const keeper = new RepairSummaryKeeper(fake.store, (err) => assert.fail(String(err)));
    keeper.start();
    await keeper.idle();
    assert.deepEqual(fake.reads, [[1, 3, 10_000]]);
    assert.deepEqual(fake.writes, [[10, 20, 30]]);
    assert.deepEqual(fake.stored.get(20), { drainingMs: MIN, stepsNeeded: 1, finalStep: 0 });
    await keeper.stop();
  });

  it("after a commit, summarizes only the repairs that ended since", async () => {
    const records = [ended(1)];
    const fake = fakeStore(records);
    const keeper = new RepairSummaryKeeper(fake.store, (err) => assert.fail(String(err)));
    keeper.start();
    await keeper.idle();
    records.push(ended(2));
    fake.commit(2);
    await keeper.idle();
    assert.deepEqual(fake.reads, [
      [1, 1, 10_000],
      [2, 2, 10_000],
    ]);
    assert.deepEqual(fake.writes, [[10], [20]]);
    await keeper.stop();
  });

  it("more than a batch: 500 at a time, each batch past the last", async () => {
    const fake = fakeStore(Array.from({ length: 1_200 }, (_, i) => ended(i + 1)));
    const keeper = new RepairSummaryKeeper(fake.store, (err) => assert.fail(String(err)));
    keeper.start();
    await keeper.idle();
    assert.deepEqual(fake.reads, [
      [1, 500, 10_000],
      [501, 1_000, 10_000],
      [1_001, 1_200, 10_000],
    ]);
    assert.equal(fake.stored.size, 1_200);
    await keeper.stop();
  });

  it("commits that end no repair (an add storm) start no pass; one that ends a repair looks at its record, not at the 10,000 kept", async () => {
    const records = Array.from({ length: 10_000 }, (_, i) => ended(i + 1));
    const fake = fakeStore(records);
    const keeper = new RepairSummaryKeeper(fake.store, (err) => assert.fail(String(err)));
    keeper.start();
    await keeper.idle();
    assert.equal(fake.stored.size, 10_000, "the term's first pass summarized every kept record");
    const { reads, writes } = { reads: fake.reads.length, writes: fake.writes.length };
    fake.looked.records = 0;
    for (let i = 0; i < 300; i++) fake.commit(10_001 + i, "added");
    for (let i = 0; i < 300; i++) fake.commit(10_001 + i, "steps");
    await keeper.idle();
    assert.equal(fake.looked.records, 0, "600 commits that ended no repair");
    records.push(ended(10_001));
    fake.commit(10_001);
    await keeper.idle();
    assert.deepEqual(fake.reads.slice(reads), [[10_001, 10_001, 10_000]]);
    assert.deepEqual(fake.writes.slice(writes), [[100_010]]);
    assert.ok(fake.looked.records <= 2, `a commit that ended one repair looked at ${fake.looked.records} records`);
    await keeper.stop();
  });

  it("a failed read ends the pass, told once; the next commit, even one that ends no repair, tries again", async () => {
    const errors: string[] = [];
    const fake = fakeStore([ended(1)], { failReads: true });
    const keeper = new RepairSummaryKeeper(fake.store, (err) => errors.push((err as Error).message));
    keeper.start();
    await keeper.idle();
    assert.deepEqual(errors, ["the store is away"]);
    fake.commit(5, "steps");
    await keeper.idle();
    assert.equal(fake.reads.length, 2);
    await keeper.stop();
  });

  it("a repair whose history does not fit one read is given up, the others are stored, and no commit reads it again", async () => {
    const fake = fakeStore([ended(1), ended(2), ended(3)], { tooLong: new Set([1]) });
    const keeper = new RepairSummaryKeeper(fake.store, (err) => assert.fail(String(err)));
    keeper.start();
    await keeper.idle();
    assert.deepEqual(fake.reads, [
      [1, 3, 10_000],
      [2, 3, 10_000],
    ]);
    assert.deepEqual(fake.writes, [[20, 30]]);
    assert.equal(fake.stored.has(10), false, "left for a query's larger read");
    fake.commit(1);
    await keeper.idle();
    assert.equal(fake.reads.length, 2, "a commit does not start the same read again");
    await keeper.stop();
  });

  describe("through the replica's query summaries: a query beside the keeper reads no history twice", () => {
    const WIDE = [NOW, NOW + 10 * MIN] as const;
    const drained = (read: Awaited<ReturnType<RepairSummaries["read"]>>) => read.map((r) => [r.repair.entryIndex, r.summary?.drainingMs]);

    it("a query first: the keeper stores what it read", async () => {
      const fake = fakeStore([ended(1), ended(2), ended(3)]);
      const summaries = new RepairSummaries(fake.store.entries, fake.store.finished);
      const keeper = new RepairSummaryKeeper(fake.store, (err) => assert.fail(String(err)), summaries);
      keeper.start();
      const read = summaries.read(...WIDE);
      await keeper.idle();
      assert.deepEqual(drained(await read), [
        [3, MIN],
        [2, MIN],
        [1, MIN],
      ]);
      assert.deepEqual(fake.reads, [[1, 3, 100_000]], "one read, the query's");
      assert.deepEqual(fake.writes, [[10, 20, 30]]);
      await keeper.stop();
    });

    it("the keeper first: a query waits for its read and answers from it", async () => {
      let open!: () => void;
      const fake = fakeStore([ended(1), ended(2)], { gate: new Promise((resolve) => (open = resolve)) });
      const summaries = new RepairSummaries(fake.store.entries, fake.store.finished);
      const keeper = new RepairSummaryKeeper(fake.store, (err) => assert.fail(String(err)), summaries);
      keeper.start();
      await until("the keeper reads", () => fake.reads.length);
      const read = summaries.read(...WIDE);
      open();
      assert.deepEqual(drained(await read), [
        [2, MIN],
        [1, MIN],
      ]);
      await keeper.idle();
      assert.deepEqual(fake.reads, [[1, 2, 10_000]], "one read, the keeper's");
      assert.deepEqual(fake.writes, [[10, 20]]);
      await keeper.stop();
    });
  });

  it("stopped: no pass runs and commits are no longer heard", async () => {
    const fake = fakeStore([ended(1)]);
    const keeper = new RepairSummaryKeeper(fake.store, (err) => assert.fail(String(err)));
    keeper.start();
    await keeper.stop();
    assert.equal(fake.listeners.size, 0);
    fake.commit();
    await keeper.idle();
    assert.deepEqual(fake.writes, [], "stopped before its first read (a turn of the event loop comes first)");
  });
});
