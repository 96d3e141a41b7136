import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { NotLeaderError, StoreConflictError, type EntryWrite, type KintsugiStore, type StoreCommit } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { until } from "../../support/until.js";
import { ACTOR, cluster, commitsOf, marker, newEntry, outcome, type StoreHarness } from "./store-harness.js";

/** Adds one to the entry's back-off count, noting the count it decided on. */
const bump =
  (seen: number[]) =>
  (current: RepairEntry | null): EntryWrite[] | null => {
    if (current === null) return null;
    seen.push(current.drainBackoffCount);
    return [{ entry: { ...current, drainBackoffCount: current.drainBackoffCount + 1 }, kind: "note", reason: "bump" }];
  };

/** A series of writes of every kind, returning the commits they must have announced, in order. */
async function everyKindOfWrite(store: KintsugiStore): Promise<StoreCommit[]> {
  const added = await store.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
  const changed = await store.entries.change(
    added.entry.index,
    (e) =>
      e && [
        { entry: { ...e, status: "processing" }, kind: "transition", reason: "start" },
        { entry: { ...e, status: "processing", stepStatus: "draining" }, kind: "transition", reason: "drain" },
      ],
    NOW,
    ACTOR,
  );
  await store.settings.setConstraints({ maximumWorkers: 4 });
  const recorded = await store.outcomes.record(outcome(7));
  const generated = await store.generations.recordGenerated(NOW, "operator", cluster(1), ["initialize"]);
  const dequeued = await store.entries.dequeue(added.entry.index, () => "done", NOW, ACTOR);
  const none = { entries: [], outcome: null, generation: null, settings: [] };
  return [
    { ...none, entries: [added] },
    { ...none, entries: changed },
    { ...none, settings: ["constraints"] },
    { ...none, outcome: recorded },
    { ...none, generation: generated },
    { ...none, entries: dequeued ? [dequeued] : [] },
  ];
}

/** Commits announced once and in order, on every instance; writes that fail store and announce nothing. */
export function commitCases(h: StoreHarness): void {
  describe("commits", () => {
    it("announces every commit once, in commit order, with what it changed, before the write resolves", async () => {
      const store = await h.open();
      const commits = commitsOf(store);
      const expected = await everyKindOfWrite(store);
      assert.deepEqual(commits, expected);
    });

    it(
      "announces the same commits in the same order on a second instance (what a follower sees)",
      { skip: h.second ? false : "one instance only" },
      async () => {
        const store = await h.open();
        const follower = await h.second!();
        const seen = commitsOf(follower);
        const expected = await everyKindOfWrite(store);
        await until(
          "the follower saw every commit",
          () => seen.length,
          (n) => n >= expected.length,
        );
        assert.deepEqual(seen, expected);
        assert.deepEqual(follower.entries.list(), store.entries.list());
        assert.deepEqual(await follower.outcomes.last(null), await store.outcomes.last(null));
      },
    );

    it("stops announcing to a listener once it unsubscribes", async () => {
      const store = await h.open();
      const seen: StoreCommit[] = [];
      const stop = store.onCommit((c) => seen.push(c));
      const first = await marker(store, "one");
      stop();
      await marker(store, "two");
      assert.deepEqual(seen, [first]);
    });

    it("serves a writer its own write as soon as the write resolves, on either instance", async () => {
      const store = await h.open();
      const other = h.second ? await h.second() : store;
      for (const s of [store, other]) {
        const { entry } = await s.entries.add(newEntry(`10.0.0.${s === store ? 1 : 2}`), "add", NOW, ACTOR);
        assert.deepEqual(s.entries.get(entry.index), entry);
        await s.settings.setRepairQueueEnabled(s !== store);
        assert.equal(s.settings.repairQueueEnabled(), s !== store);
        const recorded = await s.outcomes.record(outcome(entry.index));
        assert.deepEqual(await s.outcomes.last(1), [recorded]);
      }
    });

    it("gives distinct indexes to adds racing on two instances", { skip: h.second ? false : "one instance only" }, async () => {
      const [a, b] = [await h.open(), await h.second!()];
      const adds = [a, b, a, b, a, b].map((s, i) => s.entries.add(newEntry(`10.0.0.${i + 1}`), "race", NOW, ACTOR));
      const indexes = (await Promise.all(adds)).map((c) => c.entry.index).sort((x, y) => x - y);
      assert.deepEqual(indexes, [1, 2, 3, 4, 5, 6]);
      const sequences = (await Promise.all([1, 2, 3, 4, 5, 6].map((i) => a.entries.history(i))))
        .flat()
        .map((r) => r.sequence)
        .sort((x, y) => x - y);
      assert.deepEqual(sequences, [1, 2, 3, 4, 5, 6]);
    });
  });

  describe("writes racing on two instances lose nothing", { skip: h.second ? false : "one instance only" }, () => {
    it("poll outcomes get distinct sequences and are all kept", async () => {
      const [a, b] = [await h.open(), await h.second!()];
      const recorded = await Promise.all([a, b, a, b].map((s, i) => s.outcomes.record(outcome(i + 1))));
      assert.deepEqual(recorded.map((o) => o.sequence).sort(), [1, 2, 3, 4]);
      await until(
        "a has every outcome",
        async () => (await a.outcomes.last(null)).length,
        (n) => n === 4,
      );
      assert.deepEqual((await a.outcomes.last(null)).map((o) => o.machinesSeen).sort(), [1, 2, 3, 4]);
    });

    it("generated configurations get distinct generation numbers", async () => {
      const [a, b] = [await h.open(), await h.second!()];
      const records = await Promise.all([a, b].map((s, i) => s.generations.recordGenerated(NOW, "schedule", cluster(i), [])));
      assert.deepEqual(records.map((r) => [r.sequence, r.generation]).sort(), [
        [1, 1],
        [2, 2],
      ]);
      await until(
        "a has both records",
        () => a.generations.last(null).length,
        (n) => n === 2,
      );
    });

    it("constraints set on both merge both", async () => {
      const [a, b] = [await h.open(), await h.second!()];
      await Promise.all([a.settings.setConstraints({ maximumWorkers: 5 }), b.settings.setConstraints({ minimumWorkers: 2 })]);
      await until(
        "a has both values",
        () => a.settings.constraints(),
        (c) => c.maximumWorkers === 5 && c.minimumWorkers === 2,
      );
    });
  });

  describe("failed writes", () => {
    it("a write whose decide throws stores and announces nothing", async () => {
      const store = await h.open();
      const { entry } = await store.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
      const commits = commitsOf(store);
      const boom = () => {
        throw new Error("decide failed");
      };
      await assert.rejects(store.entries.change(entry.index, boom, NOW, ACTOR), /decide failed/);
      await assert.rejects(store.entries.dequeue(entry.index, boom, NOW, ACTOR), /decide failed/);
      await assert.rejects(store.entries.requestDelete(boom, "x", NOW, ACTOR), /decide failed/);
      await assert.rejects(store.enqueue(boom, NOW, ACTOR), /decide failed/);
      await assert.rejects(
        store.enqueue(() => ({ add: [{ entry: newEntry("10.0.0.2"), reason: "x" }], outcome: boom }), NOW, ACTOR),
        /decide failed/,
      );
      const after = await marker(store, "after");
      assert.deepEqual(commits, [after]);
      assert.deepEqual(store.entries.list(), [entry]);
      assert.equal((await store.entries.history(entry.index)).length, 1);
      assert.deepEqual(await store.outcomes.last(null), []);
    });

    it("a change that lost a race decides again on the value that won: no update is lost", { skip: h.second ? false : "one instance only" }, async () => {
      const [a, b] = [await h.open(), await h.second!()];
      const { entry } = await a.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
      await until("the second instance has the entry", () => b.entries.get(entry.index));
      const [seenByA, seenByB] = [[] as number[], [] as number[]];
      let racing: Promise<unknown> | null = null;
      // b's change starts inside a's decide: both decide on count 0, and only one compare-and-swap can win.
      await a.entries.change(entry.index, (current) => ((racing ??= b.entries.change(entry.index, bump(seenByB), NOW, "b")), bump(seenByA)(current)), NOW, "a");
      // Only now is b's change surely started: a store may call decide after change() returned (etcd's writes take turns).
      await racing;
      const loser = [...(seenByA.length === 2 ? seenByA : seenByB)];
      assert.deepEqual([seenByA.length + seenByB.length, loser], [3, [0, 1]], "one decided once on 0; the other on 0, then again on the winner's 1");
      // The loser's instance has both writes when its write resolves; the winner's sees the loser's soon after.
      await until(
        "both instances have both writes",
        () => [a, b].map((s) => s.entries.get(entry.index)?.drainBackoffCount),
        (counts) => counts.every((n) => n === 2),
      );
      assert.deepEqual(
        (await a.entries.history(entry.index)).map((r) => r.kind),
        ["created", "note", "note"],
      );
    });

    it(
      "a write that conflicts for good fails with StoreConflictError, storing and announcing nothing",
      { skip: h.contended ? false : "no concurrent writer" },
      async () => {
        const store = await h.open();
        const { entry } = await store.entries.add(newEntry("10.0.0.1"), "add", NOW, ACTOR);
        const contended = await h.contended!();
        await until("the contended instance has the entry", () => contended.entries.get(entry.index));
        const [commits, contendedCommits] = [commitsOf(store), commitsOf(contended)];
        const seen: number[] = [];
        await assert.rejects(contended.entries.change(entry.index, bump(seen), NOW, ACTOR), StoreConflictError);
        assert.ok(seen.length > 1, "it decided again after each conflict");
        const after = await marker(store, "after");
        await until("the contended instance saw the marker", () => contended.settings.healthCheckPaused("after"));
        assert.deepEqual([commits, contendedCommits], [[after], [after]]);
        assert.deepEqual(store.entries.list(), [entry]);
        assert.equal((await store.entries.history(entry.index)).length, 1);
      },
    );

    it(
      "a guarded write fails with NotLeaderError once the guard is lost, storing and announcing nothing",
      { skip: h.guardable ? false : "no leader guard" },
      async () => {
        const store = await h.open();
        const leadership = await h.guardable!();
        const leader = store.guarded(leadership.guard);
        const commits = commitsOf(store);
        const kept = await leader.entries.add(newEntry("10.0.0.1"), "as leader", NOW, ACTOR);
        await leadership.depose();
        await assert.rejects(leader.entries.add(newEntry("10.0.0.2"), "deposed", NOW, ACTOR), NotLeaderError);
        await assert.rejects(leader.entries.change(kept.entry.index, bump([]), NOW, ACTOR), NotLeaderError);
        await assert.rejects(leader.settings.setRepairQueueEnabled(false), NotLeaderError);
        await assert.rejects(leader.outcomes.record(outcome(1)), NotLeaderError);
        await assert.rejects(leader.generations.recordFailed(NOW, "schedule", "x"), NotLeaderError);
        await assert.rejects(store.guarded({ current: () => null }).entries.add(newEntry("10.0.0.3"), "not leader", NOW, ACTOR), NotLeaderError);
        const after = await marker(store, "after");
        assert.deepEqual(commits, [{ entries: [kept], outcome: null, generation: null, settings: [] }, after], "unguarded writes go on");
        assert.deepEqual(store.entries.list(), [kept.entry]);
        assert.equal(store.settings.repairQueueEnabled(), true);
      },
    );
  });
}
