import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createRepairEntry, type RepairEntry } from "../../../src/domain/repair-entry.js";
import { DatabaseOpenError, openDatabase, schemaVersion } from "../../../src/store/sqlite/database.js";
import { MIGRATIONS } from "../../../src/store/sqlite/migrations/index.js";
import { openSqliteStore } from "../../../src/store/sqlite/open-sqlite-store.js";
import type { KintsugiStore, RepairEntryPort } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { withSideStore } from "../../support/side-store.js";
import { tempDir } from "../../support/temp-dir.js";

const params = (address: string) => ({ address, machineType: "qemu", operation: "unreachable", serial: null, source: "operator" });

describe("the SQLite repair entries on a real file", () => {
  let dir: ReturnType<typeof tempDir>;
  let file: string;
  let store: KintsugiStore;
  let entries: RepairEntryPort;
  const reopen = async () => {
    await store.close();
    store = await openSqliteStore({ path: file });
    entries = store.entries;
  };
  const add = async (address: string, actor = "test") => (await entries.add(createRepairEntry(params(address), NOW), "test", NOW, actor)).entry;
  /** Writes `entry` as one transition of its index. */
  const transition = (entry: RepairEntry, reason = "x", now = NOW, actor = "test", detail?: string) =>
    entries.change(entry.index, () => [{ entry, kind: "transition", reason, detail }], now, actor);
  const dequeue = (index: number, reason = "test", now = NOW, actor = "test") => entries.dequeue(index, () => reason, now, actor);

  beforeEach(async () => {
    dir = tempDir();
    file = join(dir.path, "sub", "kintsugi.db");
    store = await openSqliteStore({ path: file });
    entries = store.entries;
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it("gives indexes that survive a restart and are never reused after a dequeue", async () => {
    const a = await add("10.0.0.1");
    const b = await add("10.0.0.2");
    assert.deepEqual([a.index, b.index], [1, 2]);
    await dequeue(b.index);
    await reopen();
    const c = await add("10.0.0.3");
    assert.equal(c.index, 3, "the dequeued highest index 2 must not be reused");
    await dequeue(3);
    await dequeue(1);
    await reopen();
    assert.equal((await add("10.0.0.4")).index, 4);
    assert.deepEqual(
      entries.list().map((e) => e.index),
      [4],
    );
  });

  it("keeps every field of an entry across a restart", async () => {
    const added = (await entries.add(createRepairEntry({ ...params("fd00::1"), serial: "abc123", source: "sabakan" }, NOW), "test", NOW, "test")).entry;
    await reopen();
    assert.deepEqual(entries.get(added.index), added);
  });

  it("appends one history record per transition, oldest first, naming who made it, and keeps it after the dequeue", async () => {
    const created = (await entries.add(createRepairEntry(params("10.0.0.1"), NOW), "created by test", NOW, "alice")).entry;
    const processing: RepairEntry = { ...created, status: "processing", stepStatus: "draining", lastTransitionTime: NOW + 1000 };
    await transition(processing, "drain started", NOW + 1000, "kintsugi");
    const watching: RepairEntry = { ...processing, stepStatus: "watching", lastTransitionTime: NOW + 2000 };
    await transition(watching, "repair command started", NOW + 2000, "kintsugi", "argv: true 10.0.0.1");
    await entries.requestDelete((e) => e.index === created.index, "operator", NOW + 3000, "bob");
    await dequeue(created.index, "dequeued", NOW + 4000, "kintsugi");
    await reopen();
    const history = await entries.history(created.index);
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
    assert.equal(entries.get(created.index), null);
  });

  it("returns each change with the entry as it was just before it, also for changes in one write", async () => {
    const created = await entries.add(createRepairEntry(params("10.0.0.1"), NOW), "created", NOW, "test");
    assert.equal(created.previous, null);
    const draining: RepairEntry = { ...created.entry, status: "processing", stepStatus: "draining" };
    const waiting: RepairEntry = { ...draining, stepStatus: "waiting", drainBackoffCount: 1, drainBackoffExpire: NOW + 300_000 };
    const [toDraining, toWaiting] = await entries.change(
      created.entry.index,
      () => [
        { entry: draining, kind: "transition", reason: "a" },
        { entry: waiting, kind: "transition", reason: "b" },
      ],
      NOW,
      "test",
    );
    assert.deepEqual([toDraining?.previous?.status, toDraining?.previous?.stepStatus], ["queued", "waiting"]);
    assert.deepEqual([toWaiting?.previous?.stepStatus, toWaiting?.previous?.drainBackoffCount], ["draining", 0]);
    const [reset] = await entries.resetBackoff("operator", NOW, "carol");
    assert.equal(reset?.previous?.drainBackoffCount, 1);
    assert.equal(reset?.record.actor, "carol", "the change's record names who, as subscriptions publish it");
    const [marked] = await entries.requestDelete(() => true, "operator", NOW, "test");
    assert.equal(marked?.previous?.deleted, false);
    const gone = await dequeue(created.entry.index, "dequeued");
    assert.equal(gone?.previous?.deleted, true);
  });

  describe("list, kept between writes", () => {
    const statuses = () => entries.list().map((e) => [e.index, e.status]);
    const cases: Array<[string, (entry: RepairEntry) => Promise<unknown>, string]> = [
      ["its own change", (e) => transition({ ...e, status: "processing" }), "processing"],
      ["a commit through another connection to the same file", (e) => withSideStore(file, (side) => side.transition(e.index, { status: "failed" })), "failed"],
      [
        "a rolled-back write leaves the committed state",
        async (e) => {
          // The first write lands, the second names another entry: the whole change rolls back.
          const writes = [
            { entry: { ...e, status: "succeeded" as const }, kind: "transition" as const, reason: "x" },
            { entry: { ...e, index: e.index + 1 }, kind: "transition" as const, reason: "x" },
          ];
          await assert.rejects(
            entries.change(e.index, () => writes, NOW, "test"),
            /cannot write entry/,
          );
        },
        "queued",
      ],
    ];
    for (const [name, change, want] of cases) {
      it(`sees ${name}`, async () => {
        const entry = await add("10.0.0.1");
        assert.deepEqual(statuses(), [[entry.index, "queued"]]);
        await change(entry);
        assert.deepEqual(statuses(), [[entry.index, want]]);
      });
    }

    it("hands out frozen entries in a new array each time", async () => {
      await add("10.0.0.1");
      const a = entries.list();
      assert.notEqual(a, entries.list());
      assert.ok(Object.isFrozen(a[0]));
      a.pop();
      assert.equal(entries.list().length, 1);
    });
  });

  it("refuses to rewrite or delete history", async () => {
    await add("10.0.0.1");
    await withSideStore(file, ({ db }) => {
      assert.throws(() => db.prepare("UPDATE repair_history SET reason = 'x'").run(), /append-only/);
      assert.throws(() => db.prepare("DELETE FROM repair_history").run(), /append-only/);
    });
  });

  it("refuses a change of an entry that is gone, writing nothing", async () => {
    const a = await add("10.0.0.1");
    await dequeue(a.index);
    await assert.rejects(transition({ ...a, status: "processing" }), /repair entry 1 is not in the queue/);
    assert.deepEqual(
      (await entries.history(a.index)).map((r) => r.kind),
      ["created", "dequeued"],
    );
  });

  it("marks for deletion only what is not marked yet, and resets back-off only where there is one", async () => {
    const a = await add("10.0.0.1");
    const b = await add("10.0.0.2");
    await transition({ ...b, status: "processing", drainBackoffCount: 2, drainBackoffExpire: NOW + 600_000 }, "back-off");
    assert.deepEqual(
      (await entries.requestDelete((e) => e.index === a.index, "op", NOW, "test")).map((c) => c.entry.index),
      [a.index],
    );
    assert.deepEqual(await entries.requestDelete((e) => e.index === a.index, "op", NOW, "test"), [], "a second request is a no-op");
    const reset = await entries.resetBackoff("op", NOW, "test");
    assert.deepEqual(
      reset.map((c) => [c.entry.index, c.entry.drainBackoffCount, c.entry.drainBackoffExpire, c.record.kind]),
      [[b.index, 0, null, "backoff-reset"]],
    );
  });
});

describe("openDatabase", () => {
  it("uses WAL with synchronous=FULL and records the schema version", () => {
    const dir = tempDir();
    try {
      const db = openDatabase(join(dir.path, "kintsugi.db"));
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      assert.equal(db.pragma("synchronous", { simple: true }), 2);
      assert.equal(schemaVersion(db), MIGRATIONS.at(-1)?.version);
      db.close();
    } finally {
      dir.remove();
    }
  });

  it("names the file and the cause when the path cannot be written", () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "file"), "not a directory");
      assert.throws(
        () => openDatabase(join(dir.path, "file", "kintsugi.db")),
        (err: Error) => {
          assert.ok(err instanceof DatabaseOpenError);
          assert.match(err.message, /cannot open database .*file\/kintsugi\.db: /);
          return true;
        },
      );
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

describe("the SQLite settings", () => {
  it("persists switches, variables and constraints, with config values under stored ones", async () => {
    const dir = tempDir();
    try {
      const path = join(dir.path, "kintsugi.db");
      let store = await openSqliteStore({ path, initialConstraints: { maximumRepairQueueEntries: 5, minimumWorkers: 2 } });
      let { settings } = store;
      assert.equal(settings.repairQueueEnabled(), true);
      assert.equal(settings.autoRepairEnabled(), true);
      assert.deepEqual(settings.autoRepairVariables(), { having: { states: ["UNHEALTHY", "UNREACHABLE"] }, notHaving: { roles: ["boot"] } });
      assert.equal(settings.constraints().maximumRepairQueueEntries, 5);
      await settings.setRepairQueueEnabled(false);
      await settings.setAutoRepairEnabled(false);
      await settings.setAutoRepairVariables({ having: { racks: [1] }, notHaving: null });
      await settings.setConstraints({ maximumRepairQueueEntries: 7 });
      await store.close();
      store = await openSqliteStore({ path, initialConstraints: { maximumRepairQueueEntries: 5, minimumWorkers: 3 } });
      settings = store.settings;
      assert.equal(settings.repairQueueEnabled(), false);
      assert.equal(settings.autoRepairEnabled(), false);
      assert.deepEqual(settings.autoRepairVariables(), { having: { racks: [1] }, notHaving: null });
      assert.equal(settings.constraints().maximumRepairQueueEntries, 7, "the stored value wins over the config file");
      assert.equal(settings.constraints().minimumWorkers, 3, "an unset constraint follows the config file");
      await store.close();
    } finally {
      dir.remove();
    }
  });
});
