import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { RepairEntry } from "../../../src/domain/queue/repair-entry.js";
import type { EntryWrite } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { ACTOR, commitsOf, newEntry, outcome, type StoreHarness } from "./store-harness.js";

const SECOND = 1000;

/** Indexes, history, and the entry writes that decide on the stored state. */
export function queueCases(h: StoreHarness): void {
  describe("repair entries", () => {
    it("gives monotonic indexes that are never reused after dequeues and restarts", async () => {
      let store = await h.open();
      const a = (await store.entries.add(newEntry("10.0.0.1"), "test", NOW, ACTOR)).entry;
      const b = (await store.entries.add(newEntry("10.0.0.2"), "test", NOW, ACTOR)).entry;
      assert.deepEqual([a.index, b.index], [1, 2]);
      await store.entries.dequeue(b.index, () => "done", NOW, ACTOR);
      store = await h.reopen();
      const c = (await store.entries.add(newEntry("10.0.0.3"), "test", NOW, ACTOR)).entry;
      assert.equal(c.index, 3, "the dequeued highest index 2 must not be reused");
      await store.entries.dequeue(3, () => "done", NOW, ACTOR);
      await store.entries.dequeue(1, () => "done", NOW, ACTOR);
      store = await h.reopen();
      assert.deepEqual(store.entries.list(), []);
      assert.equal((await store.entries.add(newEntry("10.0.0.4"), "test", NOW, ACTOR)).entry.index, 4, "an empty queue does not restart at 1");
      assert.deepEqual(
        store.entries.list().map((e) => e.index),
        [4],
      );
    });

    it("lands a burst of concurrent writes on one instance, each once, none given up", async () => {
      const store = await h.open();
      const commits = commitsOf(store);
      const burst = 24;
      const added = await Promise.all(Array.from({ length: burst }, (_, i) => store.entries.add(newEntry(`10.0.1.${i + 1}`), "burst", NOW, ACTOR)));
      const indexes = added.map((c) => c.entry.index).sort((x, y) => x - y);
      assert.deepEqual(
        indexes,
        Array.from({ length: burst }, (_, i) => i + 1),
        "every add got its own index",
      );
      assert.equal(store.entries.list().length, burst);
      assert.equal(commits.length, burst, "one commit per add");
    });

    it("keeps every field of an entry across a restart", async () => {
      const store = await h.open();
      const added = (
        await store.entries.add(
          newEntry("fd00::1", { serial: null, source: "sabakan", nodename: "n1", drainBackoffCount: 2, drainBackoffExpire: NOW + 5 }),
          "test",
          NOW,
          ACTOR,
        )
      ).entry;
      assert.deepEqual(store.entries.get(added.index), added);
      assert.deepEqual((await h.reopen()).entries.get(added.index), added);
    });

    it("appends one history record per change, oldest first, naming who made it, and keeps it after the dequeue", async () => {
      const store = await h.open();
      const created = (await store.entries.add(newEntry("10.0.0.1"), "created by test", NOW, "alice")).entry;
      const draining: RepairEntry = { ...created, status: "processing", stepStatus: "draining" };
      const watching: RepairEntry = { ...draining, stepStatus: "watching" };
      await store.entries.change(created.index, (e) => e && [{ entry: draining, kind: "transition", reason: "drain started" }], NOW + SECOND, "kintsugi");
      await store.entries.change(
        created.index,
        (e) => e && [{ entry: watching, kind: "transition", reason: "repair command started", detail: "argv: true" }],
        NOW + 2 * SECOND,
        "kintsugi",
      );
      await store.entries.requestDelete((e) => e.index === created.index, "operator", NOW + 3 * SECOND, "bob");
      await store.entries.dequeue(created.index, () => "dequeued", NOW + 4 * SECOND, "kintsugi");
      const history = await (await h.reopen()).entries.history(created.index);
      assert.deepEqual(
        history.map((r) => [r.entryIndex, r.kind, r.reason, r.detail, r.status, r.stepStatus, r.deleted, r.time, r.actor]),
        [
          [1, "created", "created by test", null, "queued", "waiting", false, NOW, "alice"],
          [1, "transition", "drain started", null, "processing", "draining", false, NOW + SECOND, "kintsugi"],
          [1, "transition", "repair command started", "argv: true", "processing", "watching", false, NOW + 2 * SECOND, "kintsugi"],
          [1, "delete-requested", "operator", null, "processing", "watching", true, NOW + 3 * SECOND, "bob"],
          [1, "dequeued", "dequeued", null, "processing", "watching", true, NOW + 4 * SECOND, "kintsugi"],
        ],
      );
      assert.deepEqual(
        history.map((r) => r.sequence),
        [1, 2, 3, 4, 5],
      );
      assert.deepEqual(await h.reopen().then((s) => s.entries.history(99)), [], "an index that never was has no history");
    });

    it("numbers history records across all entries, increasing across restarts", async () => {
      let store = await h.open();
      const a = (await store.entries.add(newEntry("10.0.0.1"), "a", NOW, ACTOR)).record.sequence;
      const b = (await store.entries.add(newEntry("10.0.0.2"), "b", NOW, ACTOR)).record.sequence;
      await store.entries.dequeue(2, () => "gone", NOW, ACTOR);
      store = await h.reopen();
      const [c] = await store.entries.change(1, (e) => e && [{ entry: { ...e, nodename: "n1" }, kind: "note", reason: "c" }], NOW, ACTOR);
      assert.deepEqual([a, b, c?.record.sequence], [1, 2, 4]);
    });

    it("change passes the stored entry and writes several changes in order, each with the entry before it", async () => {
      const store = await h.open();
      const created = (await store.entries.add(newEntry("10.0.0.1"), "test", NOW, ACTOR)).entry;
      const seen: Array<RepairEntry | null> = [];
      const first: RepairEntry = { ...created, status: "processing" };
      const second: RepairEntry = { ...first, stepStatus: "draining", lastTransitionTime: NOW + SECOND };
      const changes = await store.entries.change(
        created.index,
        (current) => {
          seen.push(current);
          return [
            { entry: first, kind: "transition", reason: "one" },
            { entry: second, kind: "transition", reason: "two" },
          ];
        },
        NOW + SECOND,
        ACTOR,
      );
      assert.deepEqual(seen, [created]);
      assert.deepEqual(
        changes.map((c) => [c.previous, c.entry, c.record.reason, c.record.stepStatus]),
        [
          [created, first, "one", "waiting"],
          [first, second, "two", "draining"],
        ],
      );
      assert.deepEqual(store.entries.get(created.index), second, "the last write is what is stored");
    });

    const declines: Array<[string, (store: Awaited<ReturnType<StoreHarness["open"]>>, index: number) => Promise<unknown>, unknown]> = [
      ["change: decide returns null", (s, i) => s.entries.change(i, () => null, NOW, ACTOR), []],
      ["change: decide returns no writes", (s, i) => s.entries.change(i, () => [], NOW, ACTOR), []],
      [
        "change: the entry is gone (decide gets null)",
        (s) => s.entries.change(99, (e) => (e === null ? null : [{ entry: e, kind: "note", reason: "x" }]), NOW, ACTOR),
        [],
      ],
      ["dequeue: decide returns null", (s, i) => s.entries.dequeue(i, () => null, NOW, ACTOR), null],
      ["dequeue: the entry is gone", (s) => s.entries.dequeue(99, () => "gone", NOW, ACTOR), null],
      ["requestDelete: nothing picked", (s) => s.entries.requestDelete(() => false, "none", NOW, ACTOR), []],
      ["resetBackoff: nothing backing off", (s) => s.entries.resetBackoff("none", NOW, ACTOR), []],
    ];
    for (const [name, act, expected] of declines) {
      it(`writes and announces nothing when there is nothing to do: ${name}`, async () => {
        const store = await h.open();
        const entry = (await store.entries.add(newEntry("10.0.0.1"), "test", NOW, ACTOR)).entry;
        const commits = commitsOf(store);
        assert.deepEqual(await act(store, entry.index), expected);
        assert.deepEqual(store.entries.list(), [entry]);
        assert.equal((await store.entries.history(entry.index)).length, 1);
        assert.deepEqual(commits, []);
      });
    }

    it("refuses a change that writes an entry that is gone or another index, writing nothing", async () => {
      const store = await h.open();
      const entry = (await store.entries.add(newEntry("10.0.0.1"), "test", NOW, ACTOR)).entry;
      const write = (e: RepairEntry): EntryWrite[] => [{ entry: e, kind: "note", reason: "x" }];
      await assert.rejects(
        store.entries.change(99, () => write({ ...entry, index: 99 }), NOW, ACTOR),
        /99/,
      );
      await assert.rejects(store.entries.change(entry.index, () => write({ ...entry, index: entry.index + 1 }), NOW, ACTOR));
      assert.deepEqual(store.entries.list(), [entry]);
      assert.equal((await store.entries.history(entry.index)).length, 1);
    });

    it("dequeue asks decide with the stored entry and records it as it was", async () => {
      const store = await h.open();
      const entry = (await store.entries.add(newEntry("10.0.0.1"), "test", NOW, ACTOR)).entry;
      const seen: RepairEntry[] = [];
      const change = await store.entries.dequeue(entry.index, (current) => (seen.push(current), "finished"), NOW + SECOND, ACTOR);
      assert.deepEqual(seen, [entry]);
      assert.deepEqual([change?.entry, change?.previous, change?.record.kind, change?.record.reason], [entry, entry, "dequeued", "finished"]);
      assert.equal(store.entries.get(entry.index), null);
    });

    it("requestDelete and resetBackoff act on the current state, only on the entries that need it, in index order", async () => {
      const store = await h.open();
      const a = (await store.entries.add(newEntry("10.0.0.1"), "a", NOW, ACTOR)).entry;
      const b = (await store.entries.add(newEntry("10.0.0.2", { drainBackoffCount: 3, drainBackoffExpire: NOW + 60 * SECOND }), "b", NOW, ACTOR)).entry;
      const c = (await store.entries.add(newEntry("10.0.0.3", { drainBackoffCount: 1 }), "c", NOW, ACTOR)).entry;
      await store.entries.change(a.index, (e) => e && [{ entry: { ...e, deleted: true }, kind: "delete-requested", reason: "earlier" }], NOW, ACTOR);
      const marked = await store.entries.requestDelete(() => true, "all of them", NOW + SECOND, "bob");
      assert.deepEqual(
        marked.map((m) => [m.entry.index, m.entry.deleted, m.previous?.deleted, m.record.kind, m.record.actor]),
        [
          [b.index, true, false, "delete-requested", "bob"],
          [c.index, true, false, "delete-requested", "bob"],
        ],
      );
      assert.deepEqual(await store.entries.requestDelete(() => true, "again", NOW, ACTOR), [], "marked entries are not marked twice");
      const reset = await store.entries.resetBackoff("operator", NOW + 2 * SECOND, "carol");
      assert.deepEqual(
        reset.map((r) => [r.entry.index, r.entry.drainBackoffCount, r.entry.drainBackoffExpire, r.entry.deleted, r.record.kind]),
        [
          [b.index, 0, null, true, "backoff-reset"],
          [c.index, 0, null, true, "backoff-reset"],
        ],
      );
      assert.deepEqual(
        store.entries.list().map((e) => [e.index, e.deleted, e.drainBackoffCount]),
        [
          [1, true, 0],
          [2, true, 0],
          [3, true, 0],
        ],
      );
    });

    it("enqueue decides on the current queue and records the new entries and their outcome in one commit", async () => {
      const store = await h.open();
      const existing = (await store.entries.add(newEntry("10.0.0.1"), "api", NOW, ACTOR)).entry;
      const commits = commitsOf(store);
      const seen: RepairEntry[][] = [];
      const result = await store.enqueue(
        (queue) => {
          seen.push([...queue]);
          return {
            add: [
              { entry: newEntry("10.0.0.2", { source: "sabakan" }), reason: "sabakan says unhealthy" },
              { entry: newEntry("10.0.0.3", { source: "sabakan" }), reason: "sabakan says unreachable" },
            ],
            outcome: (enqueued) => ({ ...outcome(1), machinesSeen: 3, enqueued }),
            queueSeen: queue.length,
          };
        },
        NOW,
        "sabakan",
      );
      assert.deepEqual(seen, [[existing]]);
      assert.equal(result.decision.queueSeen, 1, "the result carries the committed decision, typed as decide returned it");
      assert.deepEqual(
        result.changes.map((c) => [c.entry.index, c.entry.address, c.previous, c.record.kind, c.record.reason, c.record.actor]),
        [
          [2, "10.0.0.2", null, "created", "sabakan says unhealthy", "sabakan"],
          [3, "10.0.0.3", null, "created", "sabakan says unreachable", "sabakan"],
        ],
      );
      assert.deepEqual(
        result.outcome?.enqueued,
        result.changes.map((c) => c.entry),
        "the outcome gets the entries as stored",
      );
      assert.deepEqual(await store.outcomes.last(1), [result.outcome]);
      assert.deepEqual(commits, [{ entries: result.changes, outcome: result.outcome, generation: null, settings: [] }]);
    });

    it("enqueue with nothing to add records the outcome alone, and with no outcome either writes nothing", async () => {
      const store = await h.open();
      const commits = commitsOf(store);
      const nothing = { add: [], outcome: null, decided: "nothing" };
      assert.deepEqual(await store.enqueue(() => nothing, NOW, "health-check:x"), { changes: [], outcome: null, decision: nothing });
      const alone = await store.enqueue(() => ({ add: [], outcome: () => outcome(2) }), NOW, "sabakan");
      assert.deepEqual(alone.changes, []);
      assert.equal(alone.outcome?.machinesSeen, 2);
      assert.deepEqual(commits, [{ entries: [], outcome: alone.outcome, generation: null, settings: [] }]);
      assert.deepEqual(store.entries.list(), []);
    });
  });
}
