import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createRepairEntry, type RepairEntry } from "../../src/domain/repair-entry.js";
import { DatabaseOpenError, openDatabase, schemaVersion, type Db } from "../../src/store/database.js";
import { MIGRATIONS } from "../../src/store/migrations/index.js";
import { RepairEntryStore } from "../../src/store/repair-entry-store.js";
import { SettingsStore } from "../../src/store/settings-store.js";
import { NOW } from "../support/fixtures.js";
import { tempDir } from "../support/temp-dir.js";

const params = (address: string) => ({ address, machineType: "qemu", operation: "unreachable", serial: null, source: "operator" });

describe("RepairEntryStore on a real SQLite file", () => {
  let dir: ReturnType<typeof tempDir>;
  let file: string;
  let db: Db;
  let store: RepairEntryStore;
  const reopen = () => {
    db.close();
    db = openDatabase(file);
    store = new RepairEntryStore(db);
  };

  beforeEach(() => {
    dir = tempDir();
    file = join(dir.path, "sub", "kintsugi.db");
    db = openDatabase(file);
    store = new RepairEntryStore(db);
  });
  afterEach(() => {
    db.close();
    dir.remove();
  });

  it("uses WAL with synchronous=FULL and records the schema version", () => {
    assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
    assert.equal(db.pragma("synchronous", { simple: true }), 2);
    assert.equal(schemaVersion(db), MIGRATIONS.at(-1)?.version);
  });

  it("gives indexes that survive a restart and are never reused after a dequeue", () => {
    const a = store.add(createRepairEntry(params("10.0.0.1"), NOW), "test", NOW, "test").entry;
    const b = store.add(createRepairEntry(params("10.0.0.2"), NOW), "test", NOW, "test").entry;
    assert.deepEqual([a.index, b.index], [1, 2]);
    store.dequeue(b, "test", NOW, "test");
    reopen();
    const c = store.add(createRepairEntry(params("10.0.0.3"), NOW), "test", NOW, "test").entry;
    assert.equal(c.index, 3, "the dequeued highest index 2 must not be reused");
    store.dequeue(store.get(3)!, "test", NOW, "test");
    store.dequeue(store.get(1)!, "test", NOW, "test");
    reopen();
    assert.equal(store.add(createRepairEntry(params("10.0.0.4"), NOW), "test", NOW, "test").entry.index, 4);
    assert.deepEqual(store.list().map((e) => e.index), [4]);
  });

  it("keeps every field of an entry across a restart", () => {
    const added = store.add(createRepairEntry({ ...params("fd00::1"), serial: "abc123", source: "sabakan" }, NOW), "test", NOW, "test").entry;
    reopen();
    assert.deepEqual(store.get(added.index), added);
  });

  it("appends one history record per transition, oldest first, naming who made it, and keeps it after the dequeue", () => {
    const created = store.add(createRepairEntry(params("10.0.0.1"), NOW), "created by test", NOW, "alice").entry;
    const processing: RepairEntry = { ...created, status: "processing", stepStatus: "draining", lastTransitionTime: NOW + 1000 };
    store.update([{ entry: processing, kind: "transition", reason: "drain started" }], NOW + 1000, "kintsugi");
    const watching: RepairEntry = { ...processing, stepStatus: "watching", lastTransitionTime: NOW + 2000 };
    store.update([{ entry: watching, kind: "transition", reason: "repair command started", detail: "argv: true 10.0.0.1" }], NOW + 2000, "kintsugi");
    store.requestDelete((e) => e.index === created.index, "operator", NOW + 3000, "bob");
    store.dequeue(store.get(created.index)!, "dequeued", NOW + 4000, "kintsugi");
    reopen();
    const history = store.history(created.index);
    assert.deepEqual(
      history.map((r) => [r.kind, r.reason, r.status, r.stepStatus, r.deleted, r.time, r.actor]),
      [
        ["created", "created by test", "queued", "waiting", false, NOW, "alice"],
        ["transition", "drain started", "processing", "draining", false, NOW + 1000, "kintsugi"],
        ["transition", "repair command started", "processing", "watching", false, NOW + 2000, "kintsugi"],
        ["delete-requested", "operator", "processing", "watching", true, NOW + 3000, "bob"],
        ["dequeued", "dequeued", "processing", "watching", true, NOW + 4000, "kintsugi"],
      ],
    );
    assert.equal(history[2]?.detail, "argv: true 10.0.0.1");
    assert.equal(store.get(created.index), null);
  });

  it("returns each change with the entry as it was just before it, also for changes in one transaction", () => {
    const created = store.add(createRepairEntry(params("10.0.0.1"), NOW), "created", NOW, "test");
    assert.equal(created.previous, null);
    const draining: RepairEntry = { ...created.entry, status: "processing", stepStatus: "draining" };
    const waiting: RepairEntry = { ...draining, stepStatus: "waiting", drainBackoffCount: 1, drainBackoffExpire: NOW + 300_000 };
    const [toDraining, toWaiting] = store.update([
      { entry: draining, kind: "transition", reason: "a" },
      { entry: waiting, kind: "transition", reason: "b" },
    ], NOW, "test");
    assert.deepEqual([toDraining?.previous?.status, toDraining?.previous?.stepStatus], ["queued", "waiting"]);
    assert.deepEqual([toWaiting?.previous?.stepStatus, toWaiting?.previous?.drainBackoffCount], ["draining", 0]);
    const [reset] = store.resetBackoff("operator", NOW, "carol");
    assert.equal(reset?.previous?.drainBackoffCount, 1);
    assert.equal(reset?.record.actor, "carol", "the change's record names who, as subscriptions publish it");
    const [marked] = store.requestDelete(() => true, "operator", NOW, "test");
    assert.equal(marked?.previous?.deleted, false);
    const gone = store.dequeue(store.get(created.entry.index)!, "dequeued", NOW, "test");
    assert.equal(gone.previous?.deleted, true);
  });

  describe("list, kept between writes", () => {
    const statuses = () => store.list().map((e) => [e.index, e.status]);
    const cases: Array<[string, (entry: RepairEntry) => void, string]> = [
      ["its own update", (e) => store.update([{ entry: { ...e, status: "processing" }, kind: "transition", reason: "x" }], NOW, "test"), "processing"],
      [
        "a commit through another connection to the same file",
        (e) => {
          const other = openDatabase(file);
          new RepairEntryStore(other).update([{ entry: { ...e, status: "failed" }, kind: "transition", reason: "x" }], NOW, "test");
          other.close();
        },
        "failed",
      ],
      [
        "a rolled-back transaction leaves the committed state",
        (e) => {
          assert.throws(() =>
            db.transaction(() => {
              store.update([{ entry: { ...e, status: "succeeded" }, kind: "transition", reason: "x" }], NOW, "test");
              assert.equal(store.list()[0]?.status, "succeeded", "inside the transaction the write is seen");
              throw new Error("roll back");
            })(),
          );
        },
        "queued",
      ],
    ];
    for (const [name, change, want] of cases) {
      it(`sees ${name}`, () => {
        const { entry } = store.add(createRepairEntry(params("10.0.0.1"), NOW), "created", NOW, "test");
        assert.deepEqual(statuses(), [[entry.index, "queued"]]);
        change(entry);
        assert.deepEqual(statuses(), [[entry.index, want]]);
      });
    }

    it("hands out frozen entries in a new array each time", () => {
      store.add(createRepairEntry(params("10.0.0.1"), NOW), "created", NOW, "test");
      const a = store.list();
      assert.notEqual(a, store.list());
      assert.ok(Object.isFrozen(a[0]));
      a.pop();
      assert.equal(store.list().length, 1);
    });
  });

  it("refuses to rewrite or delete history", () => {
    store.add(createRepairEntry(params("10.0.0.1"), NOW), "test", NOW, "test");
    assert.throws(() => db.prepare("UPDATE repair_history SET reason = 'x'").run(), /append-only/);
    assert.throws(() => db.prepare("DELETE FROM repair_history").run(), /append-only/);
  });

  it("rolls back a whole update when one of its entries is gone", () => {
    const a = store.add(createRepairEntry(params("10.0.0.1"), NOW), "test", NOW, "test").entry;
    const b = store.add(createRepairEntry(params("10.0.0.2"), NOW), "test", NOW, "test").entry;
    store.dequeue(b, "test", NOW, "test");
    assert.throws(() =>
      store.update(
        [
          { entry: { ...a, status: "processing" }, kind: "transition", reason: "x" },
          { entry: { ...b, status: "processing" }, kind: "transition", reason: "x" },
        ],
        NOW, "test",
      ),
    );
    assert.equal(store.get(a.index)?.status, "queued");
    assert.equal(store.history(a.index).length, 1);
  });

  it("marks for deletion only what is not marked yet, and resets back-off only where there is one", () => {
    const a = store.add(createRepairEntry(params("10.0.0.1"), NOW), "test", NOW, "test").entry;
    const b = store.add(createRepairEntry(params("10.0.0.2"), NOW), "test", NOW, "test").entry;
    store.update([{ entry: { ...b, status: "processing", drainBackoffCount: 2, drainBackoffExpire: NOW + 600_000 }, kind: "transition", reason: "back-off" }], NOW, "test");
    assert.deepEqual(store.requestDelete((e) => e.index === a.index, "op", NOW, "test").map((c) => c.entry.index), [a.index]);
    assert.deepEqual(store.requestDelete((e) => e.index === a.index, "op", NOW, "test"), [], "a second request is a no-op");
    const reset = store.resetBackoff("op", NOW, "test");
    assert.deepEqual(reset.map((c) => [c.entry.index, c.entry.drainBackoffCount, c.entry.drainBackoffExpire, c.record.kind]), [[b.index, 0, null, "backoff-reset"]]);
  });
});

describe("openDatabase", () => {
  it("names the file and the cause when the path cannot be written", () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "file"), "not a directory");
      assert.throws(() => openDatabase(join(dir.path, "file", "kintsugi.db")), (err: Error) => {
        assert.ok(err instanceof DatabaseOpenError);
        assert.match(err.message, /cannot open database .*file\/kintsugi\.db: /);
        return true;
      });
    } finally {
      dir.remove();
    }
  });

  it("refuses a read-only database directory with a clear message", { skip: process.getuid?.() === 0 ? "root can write anywhere" : false }, () => {
    const dir = tempDir();
    try {
      chmodSync(dir.path, 0o500);
      assert.throws(() => openDatabase(join(dir.path, "kintsugi.db")), /cannot open database/);
    } finally {
      chmodSync(dir.path, 0o700);
      dir.remove();
    }
  });

  it("refuses a database written by a newer kintsugi and leaves it untouched", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "kintsugi.db");
      const db = openDatabase(file);
      db.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 'x')").run();
      db.close();
      assert.throws(() => openDatabase(file), /schema version 99, newer than this kintsugi knows/);
      const again = openDatabase(file, [...MIGRATIONS, { version: 99, name: "future", sql: "" }]);
      assert.equal(schemaVersion(again), 99);
      again.close();
    } finally {
      dir.remove();
    }
  });

  it("is not a file that SQLite can read: says so", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "garbage.db");
      writeFileSync(file, "this is not a database, but it is long enough to have a header".repeat(10));
      assert.throws(() => openDatabase(file), /cannot open database .*garbage\.db: file is not a database/);
    } finally {
      dir.remove();
    }
  });
});

describe("SettingsStore", () => {
  it("persists switches, variables and constraints, with config values under stored ones", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "kintsugi.db");
      let db = openDatabase(file);
      let settings = new SettingsStore(db, { maximumRepairQueueEntries: 5, minimumWorkers: 2 });
      assert.equal(settings.repairQueueEnabled(), true);
      assert.equal(settings.autoRepairEnabled(), true);
      assert.deepEqual(settings.autoRepairVariables(), { having: { states: ["UNHEALTHY", "UNREACHABLE"] }, notHaving: { roles: ["boot"] } });
      assert.equal(settings.constraints().maximumRepairQueueEntries, 5);
      settings.setRepairQueueEnabled(false);
      settings.setAutoRepairEnabled(false);
      settings.setAutoRepairVariables({ having: { racks: [1] }, notHaving: null });
      settings.setConstraints({ maximumRepairQueueEntries: 7 });
      db.close();
      db = openDatabase(file);
      settings = new SettingsStore(db, { maximumRepairQueueEntries: 5, minimumWorkers: 3 });
      assert.equal(settings.repairQueueEnabled(), false);
      assert.equal(settings.autoRepairEnabled(), false);
      assert.deepEqual(settings.autoRepairVariables(), { having: { racks: [1] }, notHaving: null });
      assert.equal(settings.constraints().maximumRepairQueueEntries, 7, "the stored value wins over the config file");
      assert.equal(settings.constraints().minimumWorkers, 3, "an unset constraint follows the config file");
      db.close();
    } finally {
      dir.remove();
    }
  });
});
