import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import { BackupError } from "../../../src/store/copy/new-file.js";
import { checkDatabaseFile } from "../../../src/store/copy/database-check.js";
import { backupEtcdStore, backupSqliteDatabase } from "../../../src/store/copy/store-backup.js";
import { summarizeSnapshot } from "../../../src/store/copy/snapshot-digest.js";
import { openEtcdSnapshotSource } from "../../../src/store/copy/snapshot-access.js";
import { openEtcdStore } from "../../../src/store/kv/etcd/open-etcd-store.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { corruptTablePage, realisticDatabase } from "../../support/damaged-databases.js";
import { portView, writeRealisticHistory } from "../../support/realistic-store.js";
import { suiteEtcd } from "../../support/suite-etcd.js";
import { tempDir } from "../../support/temp-dir.js";
import { ETCD_SKIP } from "../../support/test-etcd.js";

/** What the store at `file` answers through the port (see realistic-store.ts). */
async function sqliteView(file: string): Promise<object> {
  const store = await openSqliteStore({ path: file });
  try {
    return await portView(store);
  } finally {
    await store.close();
  }
}

describe("backing up a SQLite database into a new file", () => {
  let dir: ReturnType<typeof tempDir>;
  let source = "";
  afterEach(() => dir.remove());
  const fresh = async () => {
    dir = tempDir();
    source = join(dir.path, "data", "kintsugi.db");
    await realisticDatabase(source);
  };

  it("writes one self-contained file holding what the database holds, while a kintsugi holds the database", async () => {
    await fresh();
    const before = await checkDatabaseFile(source);
    const running = await openSqliteStore({ path: source });
    let result;
    try {
      result = await backupSqliteDatabase(source, join(dir.path, "backups", "b.db"), false);
    } finally {
      await running.close();
    }
    const out = join(dir.path, "backups", "b.db");
    assert.deepEqual(result, { from: `sqlite:${source}`, to: out, check: { ...before, file: out } });
    assert.deepEqual(readdirSync(join(dir.path, "backups")), ["b.db"], "no WAL beside it, no temporary file left");
    assert.deepEqual(await sqliteView(out), await sqliteView(source), "kintsugi serves the same from the backup");
  });

  const refused: Array<[string, (path: string) => string, (path: string) => string]> = [
    [
      "a file that exists, without force",
      (path) => (writeFileSync(join(path, "b.db"), "keep me"), join(path, "b.db")),
      (path) => `${join(path, "b.db")} already exists; name a new file, or add --force to replace it`,
    ],
    ["a directory", (path) => (mkdirSync(join(path, "b.db")), join(path, "b.db")), (path) => `${join(path, "b.db")} is a directory; name the file to write`],
    ["the database itself", () => source, () => `${source} is the database itself; name another file`],
    [
      "the database itself through a symbolic link",
      (path) => (symlinkSync(source, join(path, "link.db")), join(path, "link.db")),
      (path) => `${join(path, "link.db")} is the database itself; name another file`,
    ],
  ];
  for (const [name, out, message] of refused) {
    it(`refuses to write ${name}, changing nothing`, async () => {
      await fresh();
      const target = out(dir.path);
      const listing = readdirSync(dir.path);
      await assert.rejects(backupSqliteDatabase(source, target, false), (err: Error) => err instanceof BackupError && err.message === message(dir.path));
      assert.deepEqual(readdirSync(dir.path), listing);
      if (name.startsWith("a file")) assert.equal(readFileSync(target, "utf8"), "keep me");
    });
  }

  it("refuses a database that does not exist, creating none", async () => {
    dir = tempDir();
    const missing = join(dir.path, "missing.db");
    await assert.rejects(backupSqliteDatabase(missing, join(dir.path, "b.db"), false), { message: `there is no SQLite database at ${missing}` });
    assert.deepEqual(readdirSync(dir.path), []);
  });

  it("replaces a file with force, and a stale WAL beside it is not applied to the backup", async () => {
    await fresh();
    const out = join(dir.path, "b.db");
    // A database whose last commits are only in its WAL (its writer still has it open), copied with that WAL.
    const other = new Database(join(dir.path, "other.db"));
    other.pragma("journal_mode = WAL");
    other.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1), (2), (3)");
    copyFileSync(join(dir.path, "other.db"), out);
    copyFileSync(join(dir.path, "other.db-wal"), `${out}-wal`);
    other.close();
    await backupSqliteDatabase(source, out, true);
    assert.equal(existsSync(`${out}-wal`), false);
    const check = await checkDatabaseFile(out);
    assert.deepEqual(check.problems, []);
    assert.equal(check.summary?.sha256, (await checkDatabaseFile(source)).summary?.sha256);
  });

  it("refuses with force to replace the database of a running kintsugi", async () => {
    await fresh();
    const held = join(dir.path, "held.db");
    const running = await openSqliteStore({ path: held });
    try {
      const before = readFileSync(held);
      await assert.rejects(backupSqliteDatabase(source, held, true), {
        message: `${held} is the database of a running kintsugi (pid ${process.pid}); it is not replaced: name another file`,
      });
      assert.deepEqual(readFileSync(held), before);
    } finally {
      await running.close();
    }
  });

  it("fails on a damaged database, naming the problem, and leaves no file behind", async () => {
    await fresh();
    corruptTablePage(source);
    const out = join(dir.path, "backups", "b.db");
    await assert.rejects(backupSqliteDatabase(source, out, false), (err: Error) => {
      assert.ok(err instanceof BackupError);
      assert.match(
        err.message,
        new RegExp(`^the copy of ${source} fails its check, as the database itself does, so ${out} was not written: SQLite's integrity check`),
      );
      return true;
    });
    assert.deepEqual(readdirSync(join(dir.path, "backups")), [], "no partial file, no temporary file");
  });
});

describe("backing up an etcd store into a SQLite file", { skip: ETCD_SKIP }, () => {
  const suite = suiteEtcd("backup");
  let dir: ReturnType<typeof tempDir>;
  afterEach(() => dir.remove());

  it("reads it at one revision while replicas run, and kintsugi serves the file as etcd served the store", async () => {
    dir = tempDir();
    const prefix = suite.freshPrefix();
    const etcd = { client: suite.client, prefix, endpoints: suite.etcd.endpoints, timeoutMs: 5000 };
    const store = await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix });
    await writeRealisticHistory(store);
    const view = await portView(store);
    await store.close();
    await suite.client.put(`${prefix}leader/694d9a3c1f2e0a11`).value("boot-1");
    const source = await openEtcdSnapshotSource(etcd, true);
    const sha256 = (await summarizeSnapshot(source.description, source.items())).sha256;
    await source.close();

    const out = join(dir.path, "etcd-backup.db");
    const result = await backupEtcdStore(etcd, out, false);
    assert.equal(result.from, `etcd prefix ${prefix} on ${suite.etcd.endpoints.join(",")}`);
    assert.equal(result.to, out);
    assert.deepEqual(result.check.problems, []);
    assert.equal(result.check.summary?.sha256, sha256);
    assert.deepEqual(readdirSync(dir.path), ["etcd-backup.db"], "one file: no WAL, no lock file, no temporary file");
    assert.deepEqual(await sqliteView(out), view);
  });

  it("fails on a store it cannot copy, and leaves no file behind", async () => {
    dir = tempDir();
    const prefix = suite.freshPrefix();
    const store = await openEtcdStore({ client: suite.client, endpoints: suite.etcd.endpoints, prefix });
    await store.close();
    await suite.client.put(`${prefix}machines/0001`).value("{}");
    await assert.rejects(backupEtcdStore({ client: suite.client, prefix, endpoints: suite.etcd.endpoints, timeoutMs: 5000 }, join(dir.path, "b.db"), false), {
      message: `etcd prefix ${prefix} on ${suite.etcd.endpoints.join(",")}: store key ${prefix}machines/0001 is not one kintsugi writes; a copy cannot carry it (remove it, or copy another store)`,
    });
    assert.deepEqual(readdirSync(dir.path), []);
  });
});
