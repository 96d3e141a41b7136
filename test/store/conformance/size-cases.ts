import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isFinished, type RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { NotLeaderError, type EnqueueDecision, type WriteGuard } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, commitsOf, newEntry, outcome, type StoreHarness } from "./store-harness.js";

/** A fleet address for machine `i` (0 to 65,535). */
const address = (i: number): string => `10.1.${Math.floor(i / 256)}.${i % 256}`;

/** A poll over `machines` that enqueues every one not queued yet, keeping the queue at most `cap` long. */
function pollOf(machines: number, cap: number, seen: RepairEntry[][] = []) {
  return (queue: readonly RepairEntry[]): EnqueueDecision => {
    seen.push([...queue]);
    const queued = new Set(queue.map((e) => e.address));
    const fresh = Array.from({ length: machines }, (_, i) => address(i)).filter((a) => !queued.has(a));
    const add = fresh.slice(0, Math.max(0, cap - queue.length)).map((a) => ({ entry: newEntry(a, { source: "sabakan" }), reason: "sabakan says unhealthy" }));
    return { add, outcome: (enqueued) => ({ ...outcome(1), machinesSeen: machines, enqueued }) };
  };
}

/**
 * Writes at a data center's size: more entries in one call than etcd takes in one transaction (128 operations,
 * 1.5 MiB by default). SQLite does each in one transaction; etcd splits them into parts, each comparing the queue head.
 */
export function sizeCases(h: StoreHarness): void {
  describe("writes at a data center's size", () => {
    it("marks 1,000 finished entries for deletion in one call, in index order, each announced once, the unfinished left alone", async () => {
      const store = await h.open();
      const added = await Promise.all(
        Array.from({ length: 1_010 }, (_, i) =>
          store.entries.add(newEntry(address(i), { status: i < 1_000 ? (i % 2 === 0 ? "succeeded" : "failed") : "queued" }), "setup", NOW, ACTOR),
        ),
      );
      const commits = commitsOf(store);
      const marked = await store.entries.requestDelete(isFinished, "deletion of finished entries", NOW + 1, "bob");
      assert.equal(marked.length, 1_000);
      assert.deepEqual(
        marked.map((m) => m.entry.index),
        added.slice(0, 1_000).map((a) => a.entry.index),
      );
      assert.ok(marked.every((m) => m.entry.deleted && m.record.kind === "delete-requested" && m.record.actor === "bob"));
      assert.deepEqual(
        commits.flatMap((c) => c.entries),
        marked,
        "every change announced once, in order",
      );
      assert.deepEqual(
        store.entries
          .list()
          .filter((e) => !e.deleted)
          .map((e) => e.address),
        added.slice(1_000).map((a) => a.entry.address),
      );
      assert.deepEqual(await store.entries.requestDelete(isFinished, "again", NOW + 2, "bob"), []);
    });

    it("resets the drain back-off of 300 entries in one call", async () => {
      const store = await h.open();
      for (let i = 0; i < 300; i++)
        await store.entries.add(newEntry(address(i), { drainBackoffCount: 2, drainBackoffExpire: NOW + 60_000 }), "setup", NOW, ACTOR);
      const reset = await store.entries.resetBackoff("operator", NOW + 1, "carol");
      assert.equal(reset.length, 300);
      assert.ok(store.entries.list().every((e) => e.drainBackoffCount === 0 && e.drainBackoffExpire === null));
    });

    it("a poll enqueuing 300 machines commits them all, decided once, with one outcome listing them", async () => {
      const store = await h.open();
      const commits = commitsOf(store);
      const seen: RepairEntry[][] = [];
      const result = await store.enqueue(pollOf(300, 1_000, seen), NOW, "sabakan");
      assert.equal(seen.length, 1, "decided once");
      assert.deepEqual(
        result.changes.map((c) => c.entry.index),
        Array.from({ length: 300 }, (_, i) => i + 1),
      );
      assert.deepEqual(
        result.outcome?.enqueued,
        result.changes.map((c) => c.entry),
      );
      assert.deepEqual(await store.outcomes.last(null), [result.outcome]);
      assert.equal(store.entries.list().length, 300);
      assert.deepEqual(
        commits.flatMap((c) => c.entries),
        result.changes,
      );
      assert.deepEqual(
        commits.map((c) => c.outcome).filter((o) => o !== null),
        [result.outcome],
        "the outcome commits once, with the last part",
      );
    });

    it(
      "a leadership lost between a poll's parts leaves fewer entries than decided, never more than the cap; the next poll decides afresh",
      { skip: h.guardable ? false : "no leader guard" },
      async () => {
        const store = await h.open();
        const leadership = await h.guardable!();
        let leading = true;
        const guard: WriteGuard = { current: () => (leading ? leadership.guard.current() : null) };
        // The first part's commit is announced before the next part starts: leadership ends right there.
        const stop = store.onCommit((c) => {
          if (c.entries.length > 0) leading = false;
        });
        await assert.rejects(store.guarded(guard).enqueue(pollOf(300, 300), NOW, "sabakan"), NotLeaderError);
        stop();
        const left = store.entries.list().length;
        assert.ok(left > 0 && left < 300, `fewer entries than decided: ${left}`);
        assert.deepEqual(await store.outcomes.last(null), [], "no outcome claims what was not enqueued");
        leading = true;
        const seen: RepairEntry[][] = [];
        const next = await store.guarded(guard).enqueue(pollOf(400, 300, seen), NOW + 1, "sabakan");
        assert.equal(seen[0]?.length, left, "the next poll decides on what was committed");
        assert.equal(next.changes.length, 300 - left);
        assert.equal(store.entries.list().length, 300, "never more than the cap");
        assert.equal(new Set(store.entries.list().map((e) => e.address)).size, 300);
      },
    );
  });
}
