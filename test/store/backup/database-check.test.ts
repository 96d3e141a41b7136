import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import { BackupError } from "../../../src/store/copy/new-file.js";
import { checkDatabaseFile, type DatabaseCheck } from "../../../src/store/copy/database-check.js";
import { summarizeSnapshot } from "../../../src/store/copy/snapshot-digest.js";
import { NEWEST_SCHEMA_VERSION } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { openSqliteSnapshotSource, openSqliteSnapshotTarget } from "../../../src/store/copy/snapshot-access.js";
import { corruptTablePage, fromNewerKintsugi, misorderKvKey, olderDatabase, realisticDatabase, tamper } from "../../support/damaged-databases.js";
import { tempDir } from "../../support/temp-dir.js";

const REALISTIC_COUNTS = { settings: 10, entries: 4, history: 16, outcomes: 3, generations: 5, holds: 3, finished: 3, replayRecords: 2 };

/** The sha256 `kintsugi db copy` computes of the file (it takes the lock and migrates; the file is a copy's source). */
async function copySha(file: string): Promise<string> {
  const source = await openSqliteSnapshotSource(file);
  try {
    return (await summarizeSnapshot(source.description, source.items())).sha256;
  } finally {
    await source.close();
  }
}

describe("checking a SQLite database file (kintsugi db check)", () => {
  let dir: ReturnType<typeof tempDir>;
  afterEach(() => dir.remove());

  /** Makes the file with `make`, checks it, and asserts that the check wrote nothing to it. */
  const checked = async (make: (file: string) => unknown): Promise<DatabaseCheck> => {
    dir = tempDir();
    const file = join(dir.path, "kintsugi.db");
    await make(file);
    const before = readFileSync(file);
    const check = await checkDatabaseFile(file);
    assert.deepEqual(readFileSync(file), before, "the check wrote nothing to the file");
    assert.equal(check.file, file);
    return check;
  };

  it("passes a database kintsugi wrote: the schema version, the counts, and the sha256 a copy computes", async () => {
    const check = await checked(realisticDatabase);
    assert.deepEqual(check.problems, []);
    assert.equal(check.schemaVersion, NEWEST_SCHEMA_VERSION);
    assert.deepEqual(check.summary?.counts, REALISTIC_COUNTS);
    assert.deepEqual(check.summary?.counters, { nextIndex: 8, nextHistorySequence: 17, nextOutcomeSequence: 4, nextGenerationSequence: 6 });
    assert.equal(check.summary?.sha256, await copySha(check.file));
  });

  it("passes a database of an older schema, read as migrated in memory, and leaves the file at its version", async () => {
    const check = await checked((file) => olderDatabase(file, 3));
    assert.deepEqual(check.problems, []);
    assert.equal(check.schemaVersion, 3);
    assert.deepEqual(check.summary?.counts, { settings: 0, entries: 1, history: 1, outcomes: 0, generations: 0, holds: 0, finished: 0, replayRecords: 0 });
    assert.equal(new Database(check.file, { readonly: true }).prepare("SELECT MAX(version) FROM schema_version").pluck().get(), 3);
    assert.equal(check.summary?.sha256, await copySha(check.file), "the same sha256 as once kintsugi migrated it");
  });

  const refused: Array<[string, (file: string) => unknown, RegExp]> = [
    [
      "a page overwritten with garbage",
      async (file) => (await realisticDatabase(file), corruptTablePage(file)),
      /^SQLite's integrity check (failed: database disk image is malformed|found \d+ problem)/,
    ],
    [
      "a key out of the order of the primary key its table is kept in",
      async (file) => (await realisticDatabase(file), misorderKvKey(file)),
      /^SQLite's integrity check found 1 problem\(s\): row not in PRIMARY KEY order for kv$/,
    ],
    [
      "a file that is not SQLite's",
      (file) => writeFileSync(file, "not a database, but long enough to have a header\n".repeat(20)),
      /^SQLite's integrity check failed: file is not a database$/,
    ],
    [
      "a database from a newer kintsugi",
      async (file) => (await realisticDatabase(file), fromNewerKintsugi(file)),
      new RegExp(
        `^schema version ${NEWEST_SCHEMA_VERSION + 1} is newer than this kintsugi's \\(${NEWEST_SCHEMA_VERSION}\\): a newer kintsugi wrote it, and this one refuses to serve it`,
      ),
    ],
    [
      "a SQLite database that is not kintsugi's",
      (file) => new Database(file).exec("CREATE TABLE photos (id INTEGER PRIMARY KEY)").close(),
      /^it holds no kintsugi schema \(no schema_version table\): it is not a kintsugi database$/,
    ],
    [
      "a row whose foreign key refers to nothing",
      async (file) => (
        await realisticDatabase(file),
        tamper(file, (db) =>
          db.exec("PRAGMA foreign_keys = OFF; CREATE TABLE notes (entry INTEGER REFERENCES kv_revision (id)); INSERT INTO notes VALUES (99)"),
        )
      ),
      /^SQLite's foreign key check found 1 row\(s\) referring to rows that do not exist \(first: notes row 1 -> kv_revision\)$/,
    ],
    [
      "a row whose foreign key refers to nothing, in a table named to drive a terminal: the name escaped",
      async (file) => (
        await realisticDatabase(file),
        tamper(file, (db) =>
          db.exec(
            `PRAGMA foreign_keys = OFF; CREATE TABLE "x\x1b[2J\u202e" (entry INTEGER REFERENCES kv_revision (id)); INSERT INTO "x\x1b[2J\u202e" VALUES (99)`,
          ),
        )
      ),
      /^SQLite's foreign key check found 1 row\(s\) referring to rows that do not exist \(first: x\\x1b\[2J\\u202e row 1 -> kv_revision\)$/,
    ],
    [
      "a stored value kintsugi cannot read",
      async (file) => (
        await realisticDatabase(file),
        tamper(file, (db) => db.prepare("UPDATE kv SET value = '{not json' WHERE key = '/kintsugi/history/0000000000000003/0000000000000009'").run())
      ),
      /^sqlite:.*: store key \/kintsugi\/history\/0000000000000003\/0000000000000009 does not hold JSON: .*; a copy cannot carry it$/,
    ],
    [
      "the marker of an unfinished copy",
      async (file) => {
        const target = openSqliteSnapshotTarget(file);
        await target.begin({ copyId: "c1", source: "etcd prefix /kintsugi/ on http://127.0.0.1:2379", startedAt: "2026-11-22T05:00:00.000Z" });
        await target.close();
      },
      /holds an unfinished copy from etcd prefix \/kintsugi\/ on http:\/\/127\.0\.0\.1:2379 started at 2026-11-22T05:00:00\.000Z/,
    ],
  ];
  for (const [name, make, problem] of refused) {
    it(`finds ${name}, and names it`, async () => {
      const check = await checked(make);
      assert.equal(check.problems.length, 1, check.problems.join("\n"));
      assert.match(check.problems[0] as string, problem);
      assert.equal(check.summary, null);
    });
  }

  const unopenable: Array<[string, (path: string) => string, (file: string) => string]> = [
    ["a file that does not exist", (path) => join(path, "missing.db"), (file) => `there is no SQLite database at ${file}`],
    ["a directory", (path) => (mkdirSync(join(path, "d")), join(path, "d")), (file) => `${file} is a directory, not a SQLite database`],
  ];
  for (const [name, make, message] of unopenable) {
    it(`refuses ${name}, creating nothing`, async () => {
      dir = tempDir();
      const file = make(dir.path);
      const before = readdirSync(dir.path);
      await assert.rejects(checkDatabaseFile(file), (err: Error) => err instanceof BackupError && err.message === message(file));
      assert.deepEqual(readdirSync(dir.path), before);
      assert.equal(existsSync(join(dir.path, "missing.db")), false);
    });
  }
});
