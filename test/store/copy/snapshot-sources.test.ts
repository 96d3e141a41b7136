import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import { CopyFailedError, copyStore } from "../../../src/store/copy/copy-store.js";
import { SnapshotSourceError } from "../../../src/store/copy/store-snapshot.js";
import { UnfinishedCopyError } from "../../../src/store/copy/copy-marker.js";
import { openEtcdSnapshotSource, openSqliteSnapshotSource, openSqliteSnapshotTarget } from "../../../src/store/copy/snapshot-access.js";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import { DatabaseOpenError } from "../../../src/store/store-errors.js";
import { LEGACY_SCHEMA_VERSION } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { olderDatabase, tamper } from "../../support/damaged-databases.js";
import { NOW } from "../../support/fixtures.js";
import { tempDir } from "../../support/temp-dir.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";
import { ACTOR, newEntry } from "../conformance/store-harness.js";

const MARKER = JSON.stringify({ copyId: "c1", source: "sqlite:/var/lib/kintsugi/kintsugi.db", startedAt: "2026-11-22T05:00:00.000Z" });

/** Stores a copy refuses to read from, and what it says; nothing is written to the target then. */
describe("the sources of a copy", () => {
  let dir: ReturnType<typeof tempDir>;
  afterEach(() => dir.remove());

  describe("an etcd prefix", { skip: ETCD_SKIP }, () => {
    const suite = suiteEtcd("source");

    /** A prefix holding a kintsugi store with one entry, then `spoil` applied to it. */
    const spoiled = async (spoil: (prefix: string) => unknown) => {
      dir = tempDir();
      const prefix = suite.freshPrefix();
      const store = await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix });
      await store.entries.add(newEntry("10.0.0.1"), "added", NOW, ACTOR);
      await store.close();
      await spoil(prefix);
      return prefix;
    };
    const copyFrom = async (prefix: string, target: string) => {
      const source = await openEtcdSnapshotSource({ client: suite.client, prefix, endpoints: suite.etcd.endpoints, timeoutMs: 5000 });
      const into = openSqliteSnapshotTarget(target);
      try {
        return await copyStore(source, into);
      } finally {
        await into.close();
        await source.close();
      }
    };

    const refusedAtOpen: Array<[string, (prefix: string) => unknown, (prefix: string) => string]> = [
      [
        "one with a running replica (its election key)",
        (prefix) => suite.client.put(`${prefix}leader/694d9a3c1f2e0a11`).value("replica-a"),
        (prefix) =>
          `etcd prefix ${prefix} on ${suite.etcd.endpoints.join(",")}: 1 kintsugi replica(s) run on it (election keys under ${prefix}leader/); stop them before copying, so that nothing is written after the copy has read the store`,
      ],
      [
        "one holding a key kintsugi does not write",
        (prefix) => suite.client.put(`${prefix}machines/0001`).value("{}"),
        (prefix) =>
          `etcd prefix ${prefix} on ${suite.etcd.endpoints.join(",")}: store key ${prefix}machines/0001 is not one kintsugi writes; a copy cannot carry it (remove it, or copy another store)`,
      ],
      [
        "one with a layout newer than this kintsugi's",
        (prefix) => suite.client.put(`${prefix}schema`).value(JSON.stringify({ v: 3 })),
        (prefix) =>
          `etcd prefix ${prefix} on ${suite.etcd.endpoints.join(",")}: store key ${prefix}schema has format version 3, newer than this kintsugi knows (2); upgrade kintsugi; a copy cannot carry it`,
      ],
      [
        "one holding an unfinished copy",
        (prefix) => suite.client.put(`${prefix}copy-in-progress`).value(MARKER),
        (prefix) =>
          `etcd prefix ${prefix} holds an unfinished copy from sqlite:/var/lib/kintsugi/kintsugi.db started at 2026-11-22T05:00:00.000Z: what it holds may be incomplete, ` +
          `so it is not opened. Empty it (etcdctl del --prefix ${prefix}) and run kintsugi db copy again into the empty store`,
      ],
    ];
    for (const [name, spoil, message] of refusedAtOpen) {
      it(`refuses ${name} before writing anything`, async () => {
        const prefix = await spoiled(spoil);
        const target = join(dir.path, "target.db");
        await assert.rejects(
          copyFrom(prefix, target),
          (err: Error) => (err instanceof SnapshotSourceError || err instanceof UnfinishedCopyError) && err.message === message(prefix),
        );
        assert.equal(existsSync(target), false, "no target file was made");
      });
    }

    const refusedWhileReading: Array<[string, (prefix: string) => unknown, (prefix: string) => string]> = [
      [
        "a value that is not JSON",
        (prefix) => suite.client.put(`${prefix}entries/0000000000000001`).value("garbage"),
        (prefix) => `store key ${prefix}entries/0000000000000001 does not hold JSON`,
      ],
      [
        "an entry stored under another index",
        async (prefix) =>
          suite.client.put(`${prefix}entries/0000000000000002`).value((await suite.client.get(`${prefix}entries/0000000000000001`).string()) ?? ""),
        (prefix) => `store key ${prefix}entries/0000000000000002 holds repair entry 1; a copy cannot carry it`,
      ],
    ];
    for (const [name, spoil, message] of refusedWhileReading) {
      it(`stops at ${name}, naming its key, and leaves the target refusing to open`, async () => {
        const prefix = await spoiled(spoil);
        const target = join(dir.path, "target.db");
        await assert.rejects(copyFrom(prefix, target), (err: Error) => err instanceof CopyFailedError && err.message.includes(message(prefix)));
        await assert.rejects(() => openSqliteStore({ path: target }), UnfinishedCopyError);
      });
    }
  });

  describe("a SQLite file", () => {
    const oddHistory: Array<[string, (file: string) => Promise<void> | void, (file: string) => string]> = [
      [
        "in the key-value table",
        async (file) => {
          const store = await openSqliteStore({ path: file });
          await store.entries.add(newEntry("10.0.0.1"), "added", NOW, ACTOR);
          await store.close();
          tamper(file, (db) =>
            db
              .prepare("UPDATE kv SET value = CAST(json_set(CAST(value AS TEXT), '$.k', 'exploded') AS BLOB) WHERE key = ?")
              .run("/kintsugi/history/0000000000000001/0000000000000001"),
          );
        },
        (file) => `stopped: sqlite:${file}: store key /kintsugi/history/0000000000000001/0000000000000001 holds an invalid value at k: Invalid option`,
      ],
      [
        // An old-format file (read by a copy as its tables): its history's kind is a column no value schema guards.
        "in an old-format file",
        (file) => {
          olderDatabase(file, LEGACY_SCHEMA_VERSION);
          tamper(file, (db) =>
            db
              .prepare(
                "INSERT INTO repair_history (entry_index, time, kind, reason, status, step, step_status, deleted, actor) VALUES (1, 0, 'exploded', '', 'queued', 0, 'waiting', 0, 'x')",
              )
              .run(),
          );
        },
        (file) => `stopped: sqlite:${file}: history record 2 (repair entry 1) cannot be copied: record.kind: Invalid option`,
      ],
    ];
    for (const [where, make, message] of oddHistory) {
      it(`stops at a history record of a kind no store writes (${where}), naming it, before writing it`, async () => {
        dir = tempDir();
        const file = join(dir.path, "odd.db");
        await make(file);
        const target = join(dir.path, "target.db");
        const into = openSqliteSnapshotTarget(target);
        const source = await openSqliteSnapshotSource(file);
        try {
          await assert.rejects(copyStore(source, into), (err: Error) => err instanceof CopyFailedError && err.message.includes(message(file)));
        } finally {
          await into.close();
          await source.close();
        }
        const copied = new Database(target, { readonly: true });
        assert.equal(copied.prepare("SELECT COUNT(*) FROM kv WHERE CAST(value AS TEXT) LIKE '%exploded%'").pluck().get(), 0);
        copied.close();
        await assert.rejects(() => openSqliteStore({ path: target }), UnfinishedCopyError);
      });
    }

    it("is refused when it does not exist, and is not made", async () => {
      dir = tempDir();
      const file = join(dir.path, "missing.db");
      await assert.rejects(
        () => openSqliteSnapshotSource(file),
        (err: Error) => err instanceof SnapshotSourceError && err.message === `there is no SQLite database at ${file}`,
      );
      assert.equal(existsSync(file), false);
    });

    it("is refused while a kintsugi holds it (its lock)", async () => {
      dir = tempDir();
      const file = join(dir.path, "held.db");
      const running = await openSqliteStore({ path: file });
      try {
        await assert.rejects(
          () => openSqliteSnapshotSource(file),
          (err: Error) =>
            err instanceof DatabaseOpenError && err.message.startsWith(`database ${file} is in use by another kintsugi process (pid ${process.pid})`),
        );
      } finally {
        await running.close();
      }
      await (await openSqliteSnapshotSource(file)).close(); // and copied once that kintsugi stopped
    });

    it("is refused when it holds an unfinished copy", async () => {
      dir = tempDir();
      const file = join(dir.path, "unfinished.db");
      const target = openSqliteSnapshotTarget(file);
      await target.begin(JSON.parse(MARKER) as Parameters<typeof target.begin>[0]);
      await target.close();
      await assert.rejects(
        () => openSqliteSnapshotSource(file),
        (err: Error) =>
          err instanceof UnfinishedCopyError &&
          err.message.startsWith(`SQLite database ${file} holds an unfinished copy from sqlite:/var/lib/kintsugi/kintsugi.db`),
      );
    });
  });
});
