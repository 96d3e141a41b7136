import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import { CopyFailedError, copyStore } from "../../../src/store/copy/copy-store.js";
import { TargetNotEmptyError, type SnapshotItem, type SnapshotSource, type SnapshotTarget } from "../../../src/store/copy/store-snapshot.js";
import { UnfinishedCopyError } from "../../../src/store/copy/copy-marker.js";
import { openEtcdSnapshotSource, openEtcdSnapshotTarget, openSqliteSnapshotSource, openSqliteSnapshotTarget } from "../../../src/store/copy/snapshot-access.js";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import { LEGACY_SCHEMA_VERSION } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { olderDatabase } from "../../support/damaged-databases.js";
import { NOW } from "../../support/fixtures.js";
import { portView, writeRealisticHistory } from "../../support/realistic-store.js";
import { tempDir } from "../../support/temp-dir.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { ACTOR, newEntry, outcome } from "../conformance/store-harness.js";

/** A copy between a real SQLite file and a real etcd prefix, both ways, through the copy's public functions. */
describe("copying a store between SQLite and etcd", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("copy");
  let dir: ReturnType<typeof tempDir>;
  let prefix = "";
  const cleanup: Array<() => Promise<unknown> | unknown> = [];

  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    dir.remove();
  });

  const fresh = () => {
    dir = tempDir();
    prefix = suite.freshPrefix();
  };
  const etcdAt = (at = prefix) => ({ client: suite.client, prefix: at, endpoints: suite.etcd.endpoints, timeoutMs: 5000 });
  const sqliteWithHistory = async (file: string) => {
    const store = await openSqliteStore({ path: file });
    await writeRealisticHistory(store);
    const view = await portView(store);
    await store.close();
    return view;
  };
  /** Opens a store and closes it after the test. */
  const opened = async (open: () => KintsugiStore | Promise<KintsugiStore>) => {
    const store = await open();
    cleanup.push(() => store.close());
    return store;
  };
  const copy = async (source: SnapshotSource | Promise<SnapshotSource>, target: SnapshotTarget | Promise<SnapshotTarget>) => {
    const [s, t] = [await source, await target];
    try {
      return await copyStore(s, t);
    } finally {
      await t.close();
      await s.close();
    }
  };
  const keysUnder = async (at: string) => Object.keys(await suite.client.getAll().prefix(at).strings()).sort();

  it("copies SQLite to etcd and back: every read through the port is the original's, the hashes are equal, and no index or sequence is reused", async () => {
    fresh();
    const original = join(dir.path, "original.db");
    const back = join(dir.path, "back.db");
    const view = await sqliteWithHistory(original);

    const there = await copy(openSqliteSnapshotSource(original), openEtcdSnapshotTarget(etcdAt()));
    assert.deepEqual(there.summary.counts, { settings: 10, entries: 4, history: 16, outcomes: 3, generations: 5, holds: 3, finished: 3, replayRecords: 2 });
    assert.deepEqual(there.summary.counters, { nextIndex: 8, nextHistorySequence: 17, nextOutcomeSequence: 4, nextGenerationSequence: 6 });
    assert.match(there.summary.sha256, /^[0-9a-f]{64}$/);
    assert.equal(there.from, `sqlite:${original}`);
    assert.equal(there.to, `etcd prefix ${prefix} on ${suite.etcd.endpoints.join(",")}`);
    const onEtcd = await opened(() => openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix }));
    assert.deepEqual(await portView(onEtcd), view);
    await onEtcd.close();

    const home = await copy(openEtcdSnapshotSource(etcdAt()), openSqliteSnapshotTarget(back));
    assert.deepEqual(home.summary, there.summary, "the same snapshot, hash included, on the way back");
    const onSqlite = await opened(() => openSqliteStore({ path: back }));
    assert.deepEqual(await portView(onSqlite), view);

    // The next of everything goes on above what the original handed out (entry 7 was the newest, and dequeued).
    for (const store of [onSqlite, await opened(() => openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix }))]) {
      const added = await store.entries.add(newEntry("10.0.0.9"), "after the copy", NOW, ACTOR);
      assert.deepEqual([added.entry.index, added.record.sequence], [8, 17], store.backend);
      assert.equal((await store.outcomes.record(outcome(7))).sequence, 4, store.backend);
      assert.equal((await store.generations.recordRecovered(NOW, "schedule")).sequence, 6, store.backend);
    }
  });

  it("copies a history longer than an etcd page and a SQLite chunk, in order", async () => {
    fresh();
    // Made in the old tables (the fastest way to 1501 records): a copy reads such a file as its tables, unconverted.
    const original = join(dir.path, "long.db");
    olderDatabase(original, LEGACY_SCHEMA_VERSION);
    const db = new Database(original);
    const note = db.prepare(
      "INSERT INTO repair_history (entry_index, time, kind, reason, status, step, step_status, deleted, actor) VALUES (1, ?, 'note', ?, 'queued', 0, 'waiting', 0, 'kintsugi')",
    );
    db.transaction(() => Array.from({ length: 1500 }, (_, i) => note.run(NOW + i, `note ${i}`)))();
    db.close();
    const there = await copy(openSqliteSnapshotSource(original), openEtcdSnapshotTarget(etcdAt()));
    const back = await copy(openEtcdSnapshotSource(etcdAt()), openSqliteSnapshotTarget(join(dir.path, "back.db")));
    assert.equal(there.summary.counts.history, 1501);
    assert.deepEqual(back.summary, there.summary);
    const history = await (await opened(() => openSqliteStore({ path: join(dir.path, "back.db") }))).entries.history(1);
    assert.deepEqual(
      history.map((r) => r.sequence),
      Array.from({ length: 1501 }, (_, i) => i + 1),
    );
  });

  it("copies an empty store: nothing but the counters, which start at 1", async () => {
    fresh();
    const empty = join(dir.path, "empty.db");
    await (await openSqliteStore({ path: empty })).close();
    const result = await copy(openSqliteSnapshotSource(empty), openEtcdSnapshotTarget(etcdAt()));
    assert.deepEqual(result.summary.counts, { settings: 0, entries: 0, history: 0, outcomes: 0, generations: 0, holds: 0, finished: 0, replayRecords: 0 });
    assert.deepEqual(result.summary.counters, { nextIndex: 1, nextHistorySequence: 1, nextOutcomeSequence: 1, nextGenerationSequence: 1 });
    const store = await opened(() => openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix }));
    assert.equal((await store.entries.add(newEntry("10.0.0.1"), "first", NOW, ACTOR)).entry.index, 1);
  });

  const nonEmptyTargets: Array<[string, (source: string) => Promise<{ target: () => SnapshotTarget; state: () => Promise<unknown>; message: string }>]> = [
    [
      "an etcd prefix holding one key that is not kintsugi's",
      async () => {
        await suite.client.put(`${prefix}something`).value("else");
        return {
          target: () => openEtcdSnapshotTarget(etcdAt()),
          state: () => suite.client.getAll().prefix(prefix).strings(),
          message: `the etcd prefix ${prefix} already holds data (1 key); copy only into an empty store`,
        };
      },
    ],
    [
      "an etcd prefix holding a kintsugi store",
      async (source) => {
        await copy(openSqliteSnapshotSource(source), openEtcdSnapshotTarget(etcdAt()));
        const held = (await keysUnder(prefix)).length;
        return {
          target: () => openEtcdSnapshotTarget(etcdAt()),
          state: () => suite.client.getAll().prefix(prefix).strings(),
          message: `the etcd prefix ${prefix} already holds data (${held} keys); copy only into an empty store`,
        };
      },
    ],
    [
      "a SQLite file holding one setting",
      async () => {
        const file = join(dir.path, "used.db");
        const store = await opened(() => openSqliteStore({ path: file }));
        await store.settings.setAutoRepairEnabled(false);
        await store.close();
        return {
          target: () => openSqliteSnapshotTarget(file),
          state: async () => [readFileSync(file), existsSync(`${file}-wal`) ? readFileSync(`${file}-wal`) : Buffer.alloc(0)],
          // The setting and the schema key every store writes when it opens.
          message: `the SQLite database ${file} already holds data (2 keys); copy only into an empty store`,
        };
      },
    ],
  ];
  for (const [name, prepare] of nonEmptyTargets) {
    it(`refuses ${name} as the target, writing nothing`, async () => {
      fresh();
      const source = join(dir.path, "source.db");
      await sqliteWithHistory(source);
      const { target, state, message } = await prepare(source);
      const before = await state();
      await assert.rejects(copy(openSqliteSnapshotSource(source), target()), (err: Error) => err instanceof TargetNotEmptyError && err.message === message);
      assert.deepEqual(await state(), before);
    });
  }

  /** A real target whose chunks are small and whose `fail`-th chunk fails (as a lost connection or a full disk would). */
  const failingAt = (target: SnapshotTarget, fail: number): SnapshotTarget => {
    let chunks = 0;
    return Object.assign(Object.create(target) as SnapshotTarget, {
      chunkLimits: { items: 3, bytes: 1024 * 1024 },
      writeChunk: async (items: readonly SnapshotItem[]) => {
        if (++chunks === fail) throw new Error("the connection was lost (simulated)");
        await target.writeChunk(items);
      },
    });
  };
  const interrupted: Array<[string, () => { target: () => SnapshotTarget; open: () => Promise<KintsugiStore>; empty: () => Promise<void>; store: string }]> = [
    [
      "an etcd prefix",
      () => ({
        target: () => openEtcdSnapshotTarget(etcdAt()),
        open: () => openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix }),
        empty: async () => void (await suite.client.delete().prefix(prefix)),
        store: `etcd prefix ${prefix}`,
      }),
    ],
    [
      "a SQLite file",
      () => {
        const file = join(dir.path, "target.db");
        return {
          target: () => openSqliteSnapshotTarget(file),
          open: async () => await openSqliteStore({ path: file }),
          empty: async () => ["", "-wal", "-shm"].forEach((suffix) => rmSync(`${file}${suffix}`, { force: true })),
          store: `SQLite database ${file}`,
        };
      },
    ],
  ];
  for (const [name, make] of interrupted) {
    it(`leaves ${name} that refuses to open when a copy is cut off after its marker, until it is emptied and copied again`, async () => {
      fresh();
      const source = join(dir.path, "source.db");
      const view = await sqliteWithHistory(source);
      const { target, open, empty, store } = make();
      await assert.rejects(
        copy(await openSqliteSnapshotSource(source), failingAt(target(), 3)),
        (err: Error) =>
          err instanceof CopyFailedError &&
          /stopped: the connection was lost \(simulated\)\n.* keeps its copy marker and refuses to open: empty it/.test(err.message),
      );
      const refusal = new RegExp(
        `^${store.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} holds an unfinished copy from sqlite:.*source\\.db started at .*: what it holds may be incomplete, so it is not opened\\. Empty it \\(.*\\) and run kintsugi db copy again into the empty store$`,
      );
      // Closed at once should it open: a store left open would keep the test from ending.
      const refused = open().then((opened) => opened.close());
      await assert.rejects(refused, (err: Error) => err instanceof UnfinishedCopyError && refusal.test(err.message));
      await assert.rejects(copy(openSqliteSnapshotSource(source), target()), TargetNotEmptyError, "copied again only into an emptied store");
      await empty();
      await copy(openSqliteSnapshotSource(source), target());
      assert.deepEqual(await portView(await opened(open)), view);
    });
  }

  /** A target's read-back that drops the first item of `kind`. */
  const dropFirst = (kind: SnapshotItem["kind"]) =>
    async function* (items: AsyncIterable<SnapshotItem>) {
      let gone = false;
      for await (const item of items) {
        if (item.kind === kind && !gone) gone = true;
        else yield item;
      }
    };
  /** A target's read-back that loses the poll outcomes' skip counts (what a copy that did not carry them reads). */
  const withoutSkipCounts = async function* (items: AsyncIterable<SnapshotItem>) {
    for await (const item of items) yield item.kind === "outcome" ? { ...item, outcome: { ...item.outcome, skippedCounts: undefined } } : item;
  };
  const dropped: Array<[string, (items: AsyncIterable<SnapshotItem>) => AsyncIterable<SnapshotItem>, RegExp]> = [
    ["a history record missing", dropFirst("history"), /history records: 16 in the source, 15 in the copy; sha256/],
    ["a replay record missing", dropFirst("replay"), /replay records: 2 in the source, 1 in the copy; sha256/],
    ["a poll outcome's skip counts missing", withoutSkipCounts, /does not match sqlite:/],
  ];
  for (const [name, readBack, differs] of dropped) {
    it(`keeps the marker when the copy does not read back as written (${name}), naming what differs`, async () => {
      fresh();
      const source = join(dir.path, "source.db");
      await sqliteWithHistory(source);
      const real = openEtcdSnapshotTarget(etcdAt());
      const dropsOne = Object.assign(Object.create(real) as SnapshotTarget, { items: () => readBack(real.items()) });
      await assert.rejects(
        copy(openSqliteSnapshotSource(source), dropsOne),
        (err: Error) =>
          err instanceof CopyFailedError &&
          /does not match sqlite:/.test(err.message) &&
          differs.test(err.message) &&
          /sha256 [0-9a-f]{64} of the source, [0-9a-f]{64} of the copy\n/.test(err.message),
      );
      await assert.rejects(
        openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix }).then((opened) => opened.close()),
        UnfinishedCopyError,
      );
    });
  }
});
