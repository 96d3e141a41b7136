import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createRepairEntry, type RepairEntry, type UnindexedRepairEntry } from "../../../src/domain/repair-entry.js";
import { openSqliteStore } from "../../../src/store/sqlite/open-sqlite-store.js";
import type { KintsugiStore, StoreCommit } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { withSideStore } from "../../support/side-store.js";
import { tempDir } from "../../support/temp-dir.js";

const unindexed = (address: string): UnindexedRepairEntry =>
  createRepairEntry({ address, machineType: "qemu", operation: "unreachable", serial: null, source: "test" }, NOW);
const failedPoll = { time: NOW, trigger: "operator" as const, machinesSeen: 0, enqueued: [], skipped: [], shortCircuit: null, error: "sabakan is down" };
const none = { entries: [], outcome: null, generation: null, settings: [] };

describe("the SQLite store announces its commits", () => {
  let dir: ReturnType<typeof tempDir>;
  let path: string;
  let store: KintsugiStore;
  let commits: StoreCommit[];
  /** Adds an entry and forgets its announcement, for cases that start from a queue. */
  const seed = async (address: string) => {
    const { entry } = await store.entries.add(unindexed(address), "seeded", NOW, "test");
    commits.length = 0;
    return entry;
  };

  beforeEach(() => {
    dir = tempDir();
    path = join(dir.path, "kintsugi.db");
    store = openSqliteStore({ path });
    commits = [];
    store.onCommit((commit) => void commits.push(commit));
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  // Each write, and the one commit it announces (built from what the write returned).
  const writes: Array<[string, (s: KintsugiStore, e: RepairEntry) => Promise<unknown>, (result: any, e: RepairEntry) => StoreCommit]> = [
    ["an added entry", (s) => s.entries.add(unindexed("10.0.0.2"), "added", NOW, "alice"), (change) => ({ ...none, entries: [change] })],
    [
      "two writes of one entry, in their order",
      (s, e) =>
        s.entries.change(
          e.index,
          (current) => [
            { entry: { ...current!, status: "processing", stepStatus: "draining" }, kind: "transition", reason: "drain" },
            { entry: { ...current!, status: "processing", stepStatus: "watching" }, kind: "transition", reason: "repair" },
          ],
          NOW,
          "kintsugi",
        ),
      (changes) => ({ ...none, entries: changes }),
    ],
    ["a dequeue", (s, e) => s.entries.dequeue(e.index, () => "gone", NOW, "kintsugi"), (change) => ({ ...none, entries: [change] })],
    ["a deletion request", (s) => s.entries.requestDelete(() => true, "operator", NOW, "bob"), (changes) => ({ ...none, entries: changes })],
    ["a switch", (s) => s.settings.setRepairQueueEnabled(false), () => ({ ...none, settings: ["repair-queue-enabled"] })],
    ["a health check's pause", (s) => s.settings.setHealthCheckPaused("kubelet", true), () => ({ ...none, settings: ["health-check-paused:kubelet"] })],
    ["constraints", (s) => s.settings.setConstraints({ minimumWorkers: 3 }), () => ({ ...none, settings: ["constraints"] })],
    ["a poll's outcome", (s) => s.outcomes.record(failedPoll), (outcome) => ({ ...none, outcome })],
    ["a failed generation round", (s) => s.generations.recordFailed(NOW, "schedule", "no template"), ({ record }) => ({ ...none, generation: record })],
    [
      "an enqueue: its entries and its outcome together",
      (s) =>
        s.enqueue(
          () => ({ add: [{ entry: unindexed("10.0.0.3"), reason: "polled" }], outcome: (enqueued) => ({ ...failedPoll, error: null, enqueued }) }),
          NOW,
          "sabakan",
        ),
      ({ changes, outcome }) => ({ ...none, entries: changes, outcome }),
    ],
  ];
  for (const [name, write, announced] of writes) {
    it(`announces ${name} once, before the write's promise resolves`, async () => {
      const entry = await seed("10.0.0.1");
      const pending = write(store, entry);
      assert.equal(commits.length, 1, "announced synchronously, as the transaction committed");
      const result = await pending;
      assert.deepEqual(commits, [announced(result, entry)]);
    });
  }

  it("announces every commit in commit order, to every listener, until it stops listening", async () => {
    const second: StoreCommit[] = [];
    const stop = store.onCommit((commit) => void second.push(commit));
    const a = await store.entries.add(unindexed("10.0.0.1"), "a", NOW, "test");
    await store.settings.setAutoRepairEnabled(false);
    const b = await store.entries.add(unindexed("10.0.0.2"), "b", NOW, "test");
    stop();
    await store.settings.setAutoRepairEnabled(true);
    assert.deepEqual(second, [
      { ...none, entries: [a] },
      { ...none, settings: ["auto-repair-enabled"] },
      { ...none, entries: [b] },
    ]);
    assert.deepEqual(commits.slice(0, 3), second);
    assert.equal(commits.length, 4);
  });

  it("announces a repeated generation failure with its grown count", async () => {
    const first = await store.generations.recordFailed(NOW, "schedule", "e1");
    const again = await store.generations.recordFailed(NOW + 1000, "schedule", "e1");
    assert.deepEqual(
      commits.map((c) => [c.generation?.sequence, c.generation?.repeats]),
      [
        [first.record.sequence, 1],
        [first.record.sequence, 2],
      ],
    );
    assert.equal(again.repeated, true);
  });

  // Writes that commit nothing: each leaves the store as it was and announces nothing.
  const unannounced: Array<[string, (s: KintsugiStore, e: RepairEntry) => Promise<unknown>, RegExp | null]> = [
    [
      "a change whose decide throws",
      (s, e) =>
        s.entries.change(
          e.index,
          () => {
            throw new Error("bad decision");
          },
          NOW,
          "test",
        ),
      /bad decision/,
    ],
    [
      "a change that writes, then fails",
      (s, e) =>
        s.entries.change(
          e.index,
          (c) => [
            { entry: { ...c!, status: "failed" }, kind: "transition", reason: "x" },
            { entry: { ...c!, index: 99 }, kind: "transition", reason: "x" },
          ],
          NOW,
          "test",
        ),
      /cannot write entry 99/,
    ],
    [
      "a dequeue whose decide throws",
      (s, e) =>
        s.entries.dequeue(
          e.index,
          () => {
            throw new Error("bad decision");
          },
          NOW,
          "test",
        ),
      /bad decision/,
    ],
    [
      "an enqueue whose decide throws",
      (s) =>
        s.enqueue(
          () => {
            throw new Error("bad decision");
          },
          NOW,
          "test",
        ),
      /bad decision/,
    ],
    [
      "an enqueue whose outcome fails after its entries were inserted",
      (s) =>
        s.enqueue(
          () => ({
            add: [{ entry: unindexed("10.0.0.9"), reason: "x" }],
            outcome: () => {
              throw new Error("no outcome");
            },
          }),
          NOW,
          "test",
        ),
      /no outcome/,
    ],
    ["a declined change", (s, e) => s.entries.change(e.index, () => null, NOW, "test"), null],
    ["a declined dequeue", (s, e) => s.entries.dequeue(e.index, () => null, NOW, "test"), null],
    ["an enqueue that adds nothing and records no outcome", (s) => s.enqueue(() => ({ add: [], outcome: null }), NOW, "test"), null],
    ["a deletion request that selects nothing", (s) => s.entries.requestDelete(() => false, "x", NOW, "test"), null],
  ];
  for (const [name, write, failure] of unannounced) {
    it(`announces nothing for ${name}, and keeps what was stored`, async () => {
      const entry = await seed("10.0.0.1");
      const history = await store.entries.history(entry.index);
      if (failure === null) await write(store, entry);
      else await assert.rejects(write(store, entry), failure);
      assert.deepEqual(commits, []);
      assert.deepEqual(store.entries.list(), [entry]);
      assert.deepEqual(await store.entries.history(entry.index), history);
      assert.deepEqual(await store.outcomes.last(null), []);
    });
  }

  it("announces nothing for a transaction SQLite refuses, and the next commit is announced", async () => {
    const entry = await seed("10.0.0.1");
    await withSideStore(path, ({ db }) => db.exec("CREATE TRIGGER refuse BEFORE UPDATE ON repair_entries BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"));
    await assert.rejects(
      store.entries.requestDelete(() => true, "x", NOW, "test"),
      /disk trouble/,
    );
    assert.deepEqual(commits, []);
    assert.equal(store.entries.get(entry.index)?.deleted, false);
    const added = await store.entries.add(unindexed("10.0.0.2"), "added", NOW, "test");
    assert.deepEqual(commits, [{ ...none, entries: [added] }]);
  });

  it("keeps a listener that throws from the others and from the write, and says so in a process warning", async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => void warnings.push(w.message);
    process.on("warning", onWarning);
    try {
      store.onCommit(() => {
        throw new Error("listener bug");
      });
      const after: StoreCommit[] = [];
      store.onCommit((commit) => void after.push(commit));
      const change = await store.entries.add(unindexed("10.0.0.1"), "added", NOW, "test");
      assert.deepEqual(after, [{ ...none, entries: [change] }], "the listener after the failing one heard the commit");
      assert.deepEqual(store.entries.list(), [change.entry], "the write stands");
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, ["a store commit listener failed: listener bug"]);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("refuses a write started inside another's decide, which would be announced before its outer write commits", async () => {
    const entry = await seed("10.0.0.1");
    let nested = Promise.resolve();
    await store.entries.change(
      entry.index,
      () => {
        nested = store.settings.setRepairQueueEnabled(false);
        return null;
      },
      NOW,
      "test",
    );
    await assert.rejects(nested, /a store write cannot start inside another write or transaction/);
    assert.deepEqual(commits, []);
    assert.equal(store.settings.repairQueueEnabled(), true);
  });

  it("announces the commit of a listener's own write after the commit being announced reached every listener", async () => {
    const order: string[] = [];
    store.onCommit((commit) => {
      order.push(`first hears ${commit.settings.join() || "entry"}`);
      if (commit.entries.length > 0) void store.settings.setRepairQueueEnabled(false);
    });
    store.onCommit((commit) => void order.push(`second hears ${commit.settings.join() || "entry"}`));
    await store.entries.add(unindexed("10.0.0.1"), "added", NOW, "test");
    assert.deepEqual(order, ["first hears entry", "second hears entry", "first hears repair-queue-enabled", "second hears repair-queue-enabled"]);
  });
});
