import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createRepairEntry, type RepairEntry, type UnindexedRepairEntry } from "../../../src/domain/repair-entry.js";
import { DatabaseOpenError } from "../../../src/store/sqlite/database.js";
import { openSqliteStore } from "../../../src/store/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { withSideStore } from "../../support/side-store.js";
import { tempDir } from "../../support/temp-dir.js";

const unindexed = (address: string): UnindexedRepairEntry =>
  createRepairEntry({ address, machineType: "qemu", operation: "unreachable", serial: null, source: "test" }, NOW);

describe("the SQLite store", () => {
  let dir: ReturnType<typeof tempDir>;
  let path: string;
  let store: KintsugiStore;
  let entry: RepairEntry;
  const kinds = async (index: number) => (await store.entries.history(index)).map((r) => r.kind);

  beforeEach(async () => {
    dir = tempDir();
    path = join(dir.path, "kintsugi.db");
    store = await openSqliteStore({ path });
    entry = (await store.entries.add(unindexed("10.0.0.1"), "seeded", NOW, "test")).entry;
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  describe("entries.change decides on the entry as stored", () => {
    const processing = (e: RepairEntry) => [{ entry: { ...e, status: "processing" as const }, kind: "transition" as const, reason: "x" }];
    const cases: Array<{
      name: string;
      before?: (e: RepairEntry) => Promise<unknown>;
      decide: (current: RepairEntry | null) => ReturnType<typeof processing> | null;
      seen: "entry" | "null" | "moved";
      changed: boolean;
    }> = [
      { name: "declines (returns []) when decide returns null", decide: () => null, seen: "entry", changed: false },
      { name: "declines when decide returns no writes", decide: () => [], seen: "entry", changed: false },
      {
        name: "declines when the entry is gone: decide is given null",
        before: (e) => store.entries.dequeue(e.index, () => "gone", NOW, "test"),
        decide: (c) => (c === null ? null : processing(c)),
        seen: "null",
        changed: false,
      },
      { name: "writes what decide returns", decide: (c) => processing(c!), seen: "entry", changed: true },
      {
        name: "gives decide the entry another writer changed after the caller read it",
        before: (e) => withSideStore(path, (side) => side.transition(e.index, { status: "failed" })),
        decide: (c) => (c?.status === "failed" ? null : processing(c!)),
        seen: "moved",
        changed: false,
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        await c.before?.(entry);
        const stored = store.entries.get(entry.index);
        const history = await kinds(entry.index);
        const seen: Array<RepairEntry | null> = [];
        const changes = await store.entries.change(entry.index, (current) => (seen.push(current), c.decide(current)), NOW, "test");
        assert.deepEqual(seen, [c.seen === "null" ? null : c.seen === "moved" ? { ...entry, status: "failed" } : entry]);
        if (!c.changed) {
          assert.deepEqual(changes, []);
          assert.deepEqual(store.entries.get(entry.index), stored);
          assert.deepEqual(await kinds(entry.index), history);
        } else {
          assert.deepEqual(
            changes.map((ch) => [ch.entry.status, ch.previous?.status, ch.record.kind]),
            [["processing", "queued", "transition"]],
          );
          assert.deepEqual(store.entries.get(entry.index), changes[0]?.entry);
        }
      });
    }
  });

  describe("entries.dequeue", () => {
    it("keeps the entry when decide gives no reason", async () => {
      assert.equal(await store.entries.dequeue(entry.index, (current) => (current.deleted ? "deleted" : null), NOW, "kintsugi"), null);
      assert.deepEqual(store.entries.get(entry.index), entry);
      assert.deepEqual(await kinds(entry.index), ["created"]);
    });

    it("removes the entry with decide's reason, keeping its history", async () => {
      await store.entries.requestDelete(() => true, "operator", NOW, "bob");
      const change = await store.entries.dequeue(entry.index, (current) => (current.deleted ? "dequeued after deletion" : null), NOW, "kintsugi");
      assert.deepEqual(
        [change?.record.kind, change?.record.reason, change?.record.actor, change?.entry.deleted],
        ["dequeued", "dequeued after deletion", "kintsugi", true],
      );
      assert.equal(store.entries.get(entry.index), null);
      assert.deepEqual(await kinds(entry.index), ["created", "delete-requested", "dequeued"]);
    });

    it("does nothing, without asking decide, for an entry that is gone", async () => {
      await store.entries.dequeue(entry.index, () => "first", NOW, "kintsugi");
      let asked = false;
      assert.equal(await store.entries.dequeue(entry.index, () => ((asked = true), "second"), NOW, "kintsugi"), null);
      assert.equal(asked, false);
      assert.deepEqual(await kinds(entry.index), ["created", "dequeued"]);
    });
  });

  describe("enqueue", () => {
    it("adds the entries and records the outcome, naming the stored entries, in one transaction", async () => {
      let queue: readonly RepairEntry[] = [];
      const result = await store.enqueue(
        (entries) => {
          queue = entries;
          return {
            add: [
              { entry: unindexed("10.0.0.2"), reason: "machine a is UNHEALTHY" },
              { entry: unindexed("10.0.0.3"), reason: "machine b is UNHEALTHY" },
            ],
            outcome: (enqueued) => ({ time: NOW, trigger: "schedule", machinesSeen: 2, enqueued, skipped: [], shortCircuit: null, error: null }),
          };
        },
        NOW,
        "sabakan",
      );
      assert.deepEqual(queue, [entry], "decide sees the queue as stored");
      assert.deepEqual(
        result.changes.map((c) => [c.entry.index, c.entry.address, c.previous, c.record.kind, c.record.reason, c.record.actor]),
        [
          [2, "10.0.0.2", null, "created", "machine a is UNHEALTHY", "sabakan"],
          [3, "10.0.0.3", null, "created", "machine b is UNHEALTHY", "sabakan"],
        ],
      );
      assert.deepEqual(
        result.outcome?.enqueued,
        result.changes.map((c) => c.entry),
        "the outcome names the entries with their indexes",
      );
      await store.close();
      store = await openSqliteStore({ path });
      assert.deepEqual(
        store.entries.list().map((e) => e.index),
        [1, 2, 3],
      );
      assert.deepEqual(await store.outcomes.last(null), [result.outcome]);
    });

    it("records no outcome when the decision has none (health checks)", async () => {
      const result = await store.enqueue(
        () => ({ add: [{ entry: unindexed("10.0.0.2"), reason: "node n2 is unhealthy" }], outcome: null }),
        NOW,
        "health-check:kubelet",
      );
      assert.equal(result.outcome, null);
      assert.deepEqual(await store.outcomes.last(null), []);
      assert.deepEqual(
        store.entries.list().map((e) => [e.address, e.source]),
        [
          ["10.0.0.1", "test"],
          ["10.0.0.2", "test"],
        ],
      );
    });

    it("adds nothing when the outcome cannot be recorded: both land or neither", async () => {
      const failing = store.enqueue(
        () => ({
          add: [{ entry: unindexed("10.0.0.2"), reason: "x" }],
          outcome: () => ({ time: NOW, trigger: "schedule", machinesSeen: Number.NaN, enqueued: [], skipped: [], shortCircuit: null, error: null }),
        }),
        NOW,
        "sabakan",
      );
      await assert.rejects(failing, /NOT NULL constraint failed: auto_repair_outcomes.machines_seen/);
      assert.deepEqual(store.entries.list(), [entry]);
      assert.deepEqual(await store.outcomes.last(null), []);
    });
  });

  it("is its own guarded store: its file lock already makes it the only writer", () => {
    assert.equal(store.guarded({ current: () => null }), store);
  });

  it("reports its backend with the database's health", () => {
    assert.equal(store.backend, "sqlite");
    assert.deepEqual(store.health(), { backend: "sqlite", healthy: true });
  });

  it("holds the database's lock until closed", async () => {
    await assert.rejects(
      () => openSqliteStore({ path }),
      (err: Error) => err instanceof DatabaseOpenError && /is in use by another kintsugi process/.test(err.message),
    );
    await store.close();
    store = await openSqliteStore({ path });
    assert.deepEqual(store.entries.list(), [entry]);
  });
});
