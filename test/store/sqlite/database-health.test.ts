import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import { openDatabase, type Db } from "../../../src/store/sqlite/database.js";
import { DatabaseHealth, type HealthVerdict } from "../../../src/store/sqlite/database-health.js";
import { SqliteSettingsStore } from "../../../src/store/sqlite/settings-store.js";
import { SqliteCommits } from "../../../src/store/sqlite/sqlite-commits.js";
import { tempDir } from "../../support/temp-dir.js";

interface Fixture {
  readonly db: Db;
  readonly file: string;
  readonly commits: SqliteCommits;
  readonly settings: SqliteSettingsStore;
  /** Moves the heartbeat clock on by this many ms. */
  advance(ms: number): void;
  check(): HealthVerdict;
}

/** A store write that writes, then fails as SQLite would with `code`; it rolls back. */
function failingWrite(f: Fixture, code: string, message: string): void {
  assert.throws(() =>
    f.commits.write(() => {
      f.db.prepare("INSERT INTO settings (key, value) VALUES ('repair-queue-enabled', 'false') ON CONFLICT (key) DO UPDATE SET value = excluded.value").run();
      throw new Database.SqliteError(message, code);
    }),
  );
}

const write = (f: Fixture) => f.settings.setRepairQueueEnabled(true);
const queryOnly = (on: boolean) => (f: Fixture) => void f.db.pragma(`query_only = ${on ? "ON" : "OFF"}`);
const nextBeat = (f: Fixture) => f.advance(1000);
const nothing = () => undefined;

type Step = [action: (f: Fixture) => Promise<void> | void, want: "healthy" | RegExp];

const cases: Array<[string, Step[]]> = [
  [
    "a writable database is healthy",
    [
      [nothing, "healthy"],
      [nextBeat, "healthy"],
    ],
  ],
  [
    "a read-only database (query_only) is unhealthy from the next heartbeat until one succeeds",
    [
      [queryOnly(true), "healthy"],
      [nextBeat, /^database .*kintsugi\.db is read-only \(SQLITE_READONLY: attempt to write a readonly database\)$/],
      [queryOnly(false), /is read-only/],
      [nextBeat, "healthy"],
    ],
  ],
  [
    "a store's read-only failure shows at once and a heartbeat that commits clears it",
    [
      [(f) => failingWrite(f, "SQLITE_READONLY", "attempt to write a readonly database"), /is read-only/],
      [nextBeat, "healthy"],
    ],
  ],
  [
    "an I/O error (extended code) is named with its code and cleared by a heartbeat that commits",
    [
      [(f) => failingWrite(f, "SQLITE_IOERR_WRITE", "disk I/O error"), /^database .*kintsugi\.db has an I\/O error \(SQLITE_IOERR_WRITE: disk I\/O error\)$/],
      [nextBeat, "healthy"],
    ],
  ],
  [
    "a full disk stays after heartbeats (they need no space) until a store transaction writes",
    [
      [
        (f) => {
          const pages = f.db.pragma("page_count", { simple: true }) as number;
          f.db.pragma(`max_page_count = ${pages}`);
          assert.throws(() => f.db.transaction(() => f.db.prepare("INSERT INTO settings (key, value) VALUES ('big', ?)").run("x".repeat(100_000)))(), {
            code: "SQLITE_FULL",
          });
        },
        /cannot grow: the disk is full \(SQLITE_FULL: database or disk is full\)/,
      ],
      [nextBeat, /the disk is full/],
      [(f) => void f.db.pragma("max_page_count = 1073741823"), /the disk is full/],
      [write, "healthy"],
    ],
  ],
  [
    "corruption stays after heartbeats and transactions that write nothing, until a store transaction writes",
    [
      [
        (f) => failingWrite(f, "SQLITE_CORRUPT", "database disk image is malformed"),
        /is corrupt \(SQLITE_CORRUPT: database disk image is malformed\); restore it from a backup/,
      ],
      [nextBeat, /is corrupt/],
      [(f) => void f.db.transaction(() => f.settings.repairQueueEnabled())(), /is corrupt/],
      [write, "healthy"],
    ],
  ],
  ["a file that is not a database counts as corrupt", [[(f) => failingWrite(f, "SQLITE_NOTADB", "file is not a database"), /is corrupt \(SQLITE_NOTADB/]]],
  [
    "another process's write lock is no verdict: heartbeats and writes fail fast as busy and health stays",
    [
      [
        async (f) => {
          const other = openDatabase(f.file);
          other.exec("BEGIN IMMEDIATE");
          try {
            await assert.rejects(write(f), { code: "SQLITE_BUSY" });
            nextBeat(f);
            assert.deepEqual(f.check(), { healthy: true });
          } finally {
            other.exec("ROLLBACK");
            other.close();
          }
        },
        "healthy",
      ],
    ],
  ],
  [
    "an error that says nothing about the file is not remembered",
    [
      [
        (f) =>
          assert.throws(() =>
            f.db.transaction(() => {
              throw new Error("a bug");
            })(),
          ),
        "healthy",
      ],
    ],
  ],
];

describe("DatabaseHealth on a real SQLite file", () => {
  let dir: ReturnType<typeof tempDir>;
  let f: Fixture;
  let checker: DatabaseHealth;

  beforeEach(() => {
    dir = tempDir();
    const file = join(dir.path, "kintsugi.db");
    const db = openDatabase(file);
    let clock = 0;
    checker = new DatabaseHealth(db, { clock: () => clock, heartbeatIntervalMs: 1000 });
    const commits = new SqliteCommits(db);
    f = { db, file, commits, settings: new SqliteSettingsStore(db, commits), advance: (ms) => (clock += ms), check: () => checker.check() };
  });
  afterEach(() => {
    f.db.close();
    dir.remove();
  });

  for (const [name, steps] of cases) {
    it(name, async () => {
      assert.deepEqual(checker.check(), { healthy: true }, "healthy at first");
      for (const [i, [action, want]] of steps.entries()) {
        await action(f);
        const verdict = checker.check();
        if (want === "healthy") assert.deepEqual(verdict, { healthy: true }, `step ${i}`);
        else assert.match(verdict.healthy ? "healthy" : verdict.reason, want, `step ${i}`);
      }
    });
  }

  it("writes its heartbeat at most once per interval, however often it is asked", () => {
    const beats = () => f.db.pragma("user_version", { simple: true }) as number;
    const before = beats();
    checker.check();
    const first = beats();
    assert.equal(first, before + 1, "the first check beats");
    for (let i = 0; i < 10; i++) checker.check();
    assert.equal(beats(), first);
    f.advance(999);
    checker.check();
    assert.equal(beats(), first);
    f.advance(1);
    for (let i = 0; i < 10; i++) checker.check();
    assert.equal(beats(), first + 1);
  });
});
