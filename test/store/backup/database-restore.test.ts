import assert from "node:assert/strict";
import { copyFileSync, existsSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { BackupError } from "../../../src/store/copy/new-file.js";
import { checkDatabaseFile } from "../../../src/store/copy/database-check.js";
import { restoreDatabase } from "../../../src/store/copy/database-restore.js";
import { backupSqliteDatabase } from "../../../src/store/copy/store-backup.js";
import { NEWEST_SCHEMA_VERSION } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { corruptTablePage, fromNewerKintsugi, olderDatabase, realisticDatabase } from "../../support/damaged-databases.js";
import { NOW } from "../../support/fixtures.js";
import { tempDir } from "../../support/temp-dir.js";
import { ACTOR, newEntry } from "../conformance/store-harness.js";

const AT = new Date(NOW);
const KEPT = "kintsugi.db.before-restore-20261122T050000Z";

/** The addresses of the entries the database at `file` holds, as kintsugi reads them (it migrates the file). */
async function addresses(file: string): Promise<string[]> {
  const store = await openSqliteStore({ path: file });
  try {
    return store.entries.list().map((e) => e.address);
  } finally {
    await store.close();
  }
}

describe("restoring a backup as the database", () => {
  let dir: ReturnType<typeof tempDir>;
  let database = "";
  let backup = "";
  afterEach(() => dir.remove());

  /** A backup of the realistic history, then a database that went on: one more entry, its last commits in its WAL. */
  const fresh = async () => {
    dir = tempDir();
    database = join(dir.path, "data", "kintsugi.db");
    backup = join(dir.path, "backup.db");
    await realisticDatabase(database);
    await backupSqliteDatabase(database, backup, false);
  };
  /** Leaves the database as a kintsugi killed with SIGKILL leaves it: the newest commit only in its WAL. */
  const crashedWithWal = async () => {
    const store = await openSqliteStore({ path: database });
    await store.entries.add(newEntry("10.0.9.9"), "added after the backup", NOW, ACTOR);
    for (const suffix of ["", "-wal", "-shm"]) copyFileSync(`${database}${suffix}`, join(dir.path, `crashed${suffix}`));
    await store.close();
    for (const suffix of ["", "-wal", "-shm"]) copyFileSync(join(dir.path, `crashed${suffix}`), `${database}${suffix}`);
  };

  it("puts the backup in place and keeps the database it replaced, with its WAL, under a new name", async () => {
    await fresh();
    await crashedWithWal();
    const before = await checkDatabaseFile(database);
    const result = await restoreDatabase(backup, database, AT);
    assert.deepEqual(result, { database, backup: await checkDatabaseFile(backup), kept: join(dir.path, "data", KEPT) });
    assert.deepEqual(readdirSync(join(dir.path, "data")).sort(), ["kintsugi.db", KEPT, `${KEPT}-shm`, `${KEPT}-wal`, "kintsugi.db.lock"]);
    assert.deepEqual(await addresses(database), ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.6"], "the backup's entries, no stale WAL applied");
    const kept = await checkDatabaseFile(join(dir.path, "data", KEPT));
    assert.equal(kept.summary?.sha256, before.summary?.sha256, "the old database, its WAL included, is all there");
  });

  it("numbers the kept name on when a restore in the same second kept one", async () => {
    await fresh();
    await restoreDatabase(backup, database, AT);
    const second = await restoreDatabase(backup, database, AT);
    assert.equal(second.kept, join(dir.path, "data", `${KEPT}-2`));
  });

  it("puts a backup in place where there is no database, and kintsugi migrates an older one forward", async () => {
    dir = tempDir();
    database = join(dir.path, "new", "kintsugi.db");
    backup = join(dir.path, "old.db");
    olderDatabase(backup, 3);
    const result = await restoreDatabase(backup, database, AT);
    assert.equal(result.kept, null);
    assert.equal(result.backup.schemaVersion, 3);
    assert.deepEqual(await addresses(database), ["10.0.0.9"]);
    assert.equal((await checkDatabaseFile(database)).schemaVersion, NEWEST_SCHEMA_VERSION);
  });

  const refused: Array<[string, () => unknown, () => RegExp]> = [
    [
      "a damaged backup",
      () => corruptTablePage(backup),
      () => new RegExp(`^backup ${backup} fails its check, so the database ${database} was left as it is: SQLite's integrity check`),
    ],
    [
      "a backup from a newer kintsugi",
      () => fromNewerKintsugi(backup),
      () =>
        new RegExp(`^backup ${backup} fails its check, so the database ${database} was left as it is: schema version ${NEWEST_SCHEMA_VERSION + 1} is newer`),
    ],
    ["a backup that is not there", () => undefined, () => new RegExp(`^there is no SQLite database at ${join(dir.path, "missing.db")}$`)],
    ["the database itself as the backup", () => undefined, () => new RegExp(`^${database} is the database itself; name a backup$`)],
    [
      "the database itself through a symbolic link",
      () => symlinkSync(database, join(dir.path, "link.db")),
      () => new RegExp(`^${join(dir.path, "link.db")} is the database itself; name a backup$`),
    ],
  ];
  for (const [name, spoil, message] of refused) {
    it(`refuses ${name}, leaving the database as it is`, async () => {
      await fresh();
      await spoil();
      const from = name.includes("symbolic link")
        ? join(dir.path, "link.db")
        : name.includes("not there")
          ? join(dir.path, "missing.db")
          : name.includes("itself")
            ? database
            : backup;
      const listing = readdirSync(join(dir.path, "data"));
      const bytes = readFileSync(database);
      await assert.rejects(restoreDatabase(from, database, AT), (err: Error) => err instanceof BackupError && message().test(err.message));
      assert.deepEqual(readdirSync(join(dir.path, "data")), listing, "nothing kept aside, no temporary file");
      assert.deepEqual(readFileSync(database), bytes);
    });
  }

  it("refuses while a kintsugi runs on the database, saying how to stop it, and changes nothing", async () => {
    await fresh();
    const running = await openSqliteStore({ path: database });
    try {
      const listing = readdirSync(join(dir.path, "data"));
      await assert.rejects(restoreDatabase(backup, database, AT), {
        message:
          `database ${database} is in use by a running kintsugi (pid ${process.pid}), which holds its lock file ${database}.lock; nothing was changed. ` +
          `Stop it first (systemctl stop kintsugi, or kill -TERM ${process.pid}: it finishes what is in flight and exits), then restore`,
      });
      assert.deepEqual(readdirSync(join(dir.path, "data")), listing);
      assert.equal(existsSync(join(dir.path, "data", KEPT)), false);
    } finally {
      await running.close();
    }
  });
});
