import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { historySummaryOf } from "../../../src/domain/stats/repair-history-summary.js";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import type { RecordedRepair } from "../../../src/domain/stats/repair-stats.js";
import { RepairSummaryKeeper } from "../../../src/runner/repair-summary-keeper.js";
import { RepairSummaries } from "../../../src/runner/repair-summaries.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { turnsDuring } from "../../support/loop-turns.js";
import { until } from "../../support/until.js";
import { ACTOR, newEntry, type StoreHarness } from "./store-harness.js";

const MIN = 60_000;
const WIDE = [NOW - 60 * MIN, NOW + 600 * MIN] as const;

/** One way a repair goes, as the writes the store sees: each moves the entry at NOW + the minute given. */
type Move = readonly [number, Partial<RepairEntry> | "dequeue" | "delete-request" | "backoff-reset"];

const SHAPES: ReadonlyArray<{ name: string; moves: readonly Move[] }> = [
  {
    name: "drained, then succeeded in one step",
    moves: [
      [1, { status: "processing", stepStatus: "draining" }],
      [3, { status: "processing", stepStatus: "watching" }],
      [9, { status: "succeeded" }],
    ],
  },
  {
    name: "two steps, then failed",
    moves: [
      [1, { status: "processing", stepStatus: "draining" }],
      [2, { status: "processing", stepStatus: "watching" }],
      [4, { status: "processing", step: 1, stepStatus: "draining" }],
      [8, { status: "failed" }],
    ],
  },
  { name: "dequeued while queued (deleted)", moves: [[5, "dequeue"]] },
  {
    name: "dequeued while draining (deleted): draining counts up to the dequeue",
    moves: [
      [1, { status: "processing", stepStatus: "draining" }],
      [7, "dequeue"],
    ],
  },
  {
    name: "succeeded, then a delete request, a back-off reset and the dequeue",
    moves: [
      [1, { status: "processing", stepStatus: "draining" }],
      [2, { status: "succeeded" }],
      [20, "delete-request"],
      [30, "backoff-reset"],
      [40, "dequeue"],
    ],
  },
];

async function play(store: KintsugiStore, address: string, moves: readonly Move[]): Promise<void> {
  const { entry } = await store.entries.add(newEntry(address), "test", NOW, ACTOR);
  for (const [minute, move] of moves) {
    const at = NOW + minute * MIN;
    if (move === "dequeue") await store.entries.dequeue(entry.index, () => "done", at, ACTOR);
    else if (move === "delete-request") await store.entries.requestDelete((e) => e.index === entry.index, "delete", at, ACTOR);
    else if (move === "backoff-reset") {
      await store.entries.change(entry.index, (e) => e && [{ entry: { ...e, drainBackoffCount: 1 }, kind: "note", reason: "backoff" }], at, ACTOR);
      await store.entries.resetBackoff("reset", at, ACTOR);
    } else
      await store.entries.change(
        entry.index,
        (e) => e && [{ entry: { ...e, ...move, lastTransitionTime: at }, kind: "transition", reason: "move" }],
        at,
        ACTOR,
      );
  }
}

/** What a fresh computation from each repair's whole history says (the port's `history`, not the timelines read). */
async function fresh(store: KintsugiStore): Promise<RecordedRepair[]> {
  return Promise.all(
    store.finished.list(WIDE[0]).map(async (repair) => {
      const history = await store.entries.history(repair.entryIndex);
      return { repair, summary: history.length === 0 ? null : historySummaryOf(history, repair.finishedAt) };
    }),
  );
}

/** The per-repair summaries repairStats reads, kept in memory by each replica over either backend. */
export function summaryCases(h: StoreHarness): void {
  describe("repair history summaries", () => {
    it("equal a fresh computation from each history, for every way a repair ends, before and after they are kept", async () => {
      const store = await h.open();
      const summaries = new RepairSummaries(store.entries, store.finished);
      for (const [i, shape] of SHAPES.entries()) await play(store, `10.0.0.${i + 1}`, shape.moves);
      const expected = await fresh(store);
      assert.equal(expected.length, SHAPES.length);
      assert.deepEqual(await summaries.read(...WIDE), expected, "the first query reads and summarizes");
      assert.deepEqual(await summaries.read(...WIDE), expected, "the second answers from the kept summaries");
      const byName = SHAPES.map((s, i) => [s.name, expected.find((r) => r.repair.address === `10.0.0.${i + 1}`)?.summary]);
      assert.deepEqual(byName, [
        [SHAPES[0]!.name, { drainingMs: 2 * MIN, stepsNeeded: 1, finalStep: 0 }],
        [SHAPES[1]!.name, { drainingMs: 5 * MIN, stepsNeeded: 2, finalStep: 1 }],
        [SHAPES[2]!.name, { drainingMs: 0, stepsNeeded: 0, finalStep: 0 }],
        [SHAPES[3]!.name, { drainingMs: 6 * MIN, stepsNeeded: 1, finalStep: 0 }],
        [SHAPES[4]!.name, { drainingMs: 1 * MIN, stepsNeeded: 1, finalStep: 0 }],
      ]);
    });

    it("kept(): the records oldest first in one frozen array, the same until a repair ends or a summary is stored", async () => {
      const store = await h.open();
      await play(store, "10.0.0.1", SHAPES[0]!.moves);
      const first = store.finished.kept();
      assert.ok(Object.isFrozen(first));
      await store.entries.add(newEntry("10.0.0.9"), "test", NOW, ACTOR);
      assert.equal(store.finished.kept(), first, "a commit that ends no repair leaves the same array");
      await play(store, "10.0.0.2", SHAPES[1]!.moves);
      const second = store.finished.kept();
      assert.notEqual(second, first, "a repair that ended");
      assert.deepEqual(
        second.map((r) => r.address),
        ["10.0.0.1", "10.0.0.2"],
      );
      assert.deepEqual(
        second,
        [...store.finished.list()].sort((a, b) => a.sequence - b.sequence),
        "the records list answers, by sequence (the second ended first)",
      );
      assert.equal(await store.finished.storeSummaries([{ sequence: second[0]!.sequence, summary: null }]), 1);
      assert.notEqual(store.finished.kept(), second, "a stored summary");
    });

    it("the leader's keeper stores every summary with its record: a restarted replica answers without reading a history", async () => {
      const store = await h.open();
      for (const [i, shape] of SHAPES.entries()) await play(store, `10.0.0.${i + 1}`, shape.moves);
      const expected = await fresh(store);
      const keeper = new RepairSummaryKeeper(store, (err) => assert.fail(String(err)));
      keeper.start();
      await keeper.idle();
      await keeper.stop();
      const reopened = await h.reopen();
      for (const r of reopened.finished.list()) {
        assert.deepEqual(
          reopened.finished.summaryOf(r.sequence),
          expected.find((e) => e.repair.sequence === r.sequence)?.summary,
          `${r.address}'s stored summary`,
        );
      }
      const timelines = () => assert.fail("a stored summary needs no history read");
      assert.deepEqual(await new RepairSummaries({ timelines }, reopened.finished).read(...WIDE), expected);
      assert.equal(
        await reopened.finished.storeSummaries(expected.map((e) => ({ sequence: e.repair.sequence, summary: null }))),
        0,
        "a stored summary is kept",
      );
      assert.equal(await reopened.finished.storeSummaries([{ sequence: 999_999, summary: null }]), 0, "a record not kept is not made");
    });

    it("more summaries than one write: stored a write at a time, a turn of the event loop between", async () => {
      const store = await h.open();
      const repairs = 101;
      const added = await store.entries.addAll(
        // Picked again for each part of the write (etcd's operations per transaction): those not queued yet.
        (queued) =>
          Array.from({ length: repairs }, (_, i) => `10.0.1.${i}`)
            .filter((address) => !queued.some((e) => e.address === address))
            .map((address) => ({ entry: newEntry(address), reason: "test" })),
        NOW,
        ACTOR,
      );
      for (const { entry } of added)
        await store.entries.change(entry.index, (e) => e && [{ entry: { ...e, status: "succeeded" }, kind: "transition", reason: "done" }], NOW + MIN, ACTOR);
      const { value: stored, turns } = await turnsDuring(() =>
        store.finished.storeSummaries(store.finished.list().map((r) => ({ sequence: r.sequence, summary: null }))),
      );
      assert.equal(stored, repairs);
      assert.ok(turns >= 1, "the event loop turned between the writes");
      assert.equal(store.finished.list().filter((r) => store.finished.summaryOf(r.sequence) === null).length, repairs);
    });

    it("a follower answers as the leader", { skip: h.second ? false : "one instance only" }, async () => {
      const leader = await h.open();
      const follower = await h.second!();
      const onLeader = new RepairSummaries(leader.entries, leader.finished);
      const onFollower = new RepairSummaries(follower.entries, follower.finished);
      await play(leader, "10.0.0.1", SHAPES[0]!.moves);
      await onLeader.read(...WIDE);
      const keeper = new RepairSummaryKeeper(leader, (err) => assert.fail(String(err)));
      keeper.start();
      for (const [i, shape] of SHAPES.slice(1).entries()) await play(leader, `10.0.0.${i + 2}`, shape.moves);
      await until(
        "the follower's mirror has every finished repair",
        () => follower.finished.list().length,
        (n) => n === SHAPES.length,
      );
      await keeper.idle();
      await keeper.stop();
      await until(
        "the follower's mirror has every stored summary",
        () => follower.finished.list().filter((r) => follower.finished.summaryOf(r.sequence) !== undefined).length,
        (n) => n === SHAPES.length,
      );
      const answer = await onLeader.read(...WIDE);
      assert.deepEqual(await onFollower.read(...WIDE), answer);
      assert.deepEqual(answer, await fresh(leader));
    });
  });
}
