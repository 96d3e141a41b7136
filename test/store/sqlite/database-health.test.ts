import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import Database from "better-sqlite3";
import { KV_SCHEMA_VERSION } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { SqliteKvDriver } from "../../../src/store/kv/sqlite/sqlite-kv-driver.js";
import { SQLITE_KV_TABLES } from "../../../src/store/kv/sqlite/sqlite-kv-schema.js";
import { openDatabase, type Db } from "../../../src/store/kv/sqlite/database.js";
import type { HealthVerdict } from "../../../src/store/kv/sqlite/database-health.js";
import { StoreBusyError, StoreUnavailableError } from "../../../src/store/store-errors.js";
import { tempDir } from "../../support/temp-dir.js";

interface Fixture {
  readonly db: Db;
  readonly file: string;
  /** The store's driver on `db`: its transactions are the store writes the health watches. */
  readonly driver: SqliteKvDriver;
  /** What the next write to `kv` throws inside its transaction (null: nothing), as a failing file would. */
  failNextWrite: Error | null;
  /** Moves the heartbeat clock on by this many ms. */
  advance(ms: number): void;
  check(): HealthVerdict;
}

const KEY = "/kintsugi/settings/repair-queue-enabled";

const put = (f: Fixture, value: string) => f.driver.txn("set", { compares: [], puts: [{ key: KEY, value }], deletes: [], reads: [] });

/** A store write that writes its key, then fails inside the transaction with `err` (a trigger on `kv`); it rolls back. */
async function failingWrite(f: Fixture, err: Error): Promise<void> {
  f.failNextWrite = err;
  await assert.rejects(put(f, "false"));
  assert.equal(f.failNextWrite, null, "the write reached the table");
  assert.equal((await f.driver.get("get", KEY)).kv?.value.toString("utf8"), "true", "rolled back");
}

const sqliteFailure = (code: string, message: string) => (f: Fixture) => failingWrite(f, new Database.SqliteError(message, code));

const write = (f: Fixture) => put(f, "true").then(() => undefined);
const queryOnly = (on: boolean) => (f: Fixture) => void f.db.pragma(`query_only = ${on ? "ON" : "OFF"}`);
const nextBeat = (f: Fixture) => f.advance(1000);
const nothing = () => undefined;

/** The driver's health as the database's verdict (the backend is always sqlite here). */
function withoutBackend(health: ReturnType<SqliteKvDriver["health"]>): HealthVerdict {
  assert.equal(health.backend, "sqlite");
  return health.healthy ? { healthy: true } : { healthy: false, reason: health.reason };
}

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
      [sqliteFailure("SQLITE_READONLY", "attempt to write a readonly database"), /is read-only/],
      [nextBeat, "healthy"],
    ],
  ],
  [
    "an I/O error (extended code) is named with its code and cleared by a heartbeat that commits",
    [
      [sqliteFailure("SQLITE_IOERR_WRITE", "disk I/O error"), /^database .*kintsugi\.db has an I\/O error \(SQLITE_IOERR_WRITE: disk I\/O error\)$/],
      [nextBeat, "healthy"],
    ],
  ],
  [
    "a full disk stays after heartbeats (they need no space) until a store transaction writes",
    [
      [
        async (f) => {
          const pages = f.db.pragma("page_count", { simple: true }) as number;
          f.db.pragma(`max_page_count = ${pages}`);
          const big = f.driver.txn("big", { compares: [], puts: [{ key: "/kintsugi/big", value: "x".repeat(100_000) }], deletes: [], reads: [] });
          await assert.rejects(big, (err: unknown) => err instanceof StoreUnavailableError && (err.cause as { code?: string }).code === "SQLITE_FULL");
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
        sqliteFailure("SQLITE_CORRUPT", "database disk image is malformed"),
        /is corrupt \(SQLITE_CORRUPT: database disk image is malformed\); restore it from a backup/,
      ],
      [nextBeat, /is corrupt/],
      [
        async (f) => {
          // A compare that fails: a transaction that reads and writes nothing.
          const nothingWritten = await f.driver.txn("compare", { compares: [{ key: KEY, target: "mod", revision: 999 }], puts: [], deletes: [], reads: [] });
          assert.equal(nothingWritten.succeeded, false);
        },
        /is corrupt/,
      ],
      [write, "healthy"],
    ],
  ],
  ["a file that is not a database counts as corrupt", [[sqliteFailure("SQLITE_NOTADB", "file is not a database"), /is corrupt \(SQLITE_NOTADB/]]],
  [
    "another process's write lock is no verdict: heartbeats and writes fail fast as busy and health stays",
    [
      [
        async (f) => {
          const other = new Database(f.file);
          other.exec("BEGIN IMMEDIATE");
          try {
            await assert.rejects(write(f), StoreBusyError);
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
  ["an error that says nothing about the file is not remembered", [[(f) => failingWrite(f, new Error("a bug")), "healthy"]]],
];

describe("DatabaseHealth, as the SQLite driver reports it, on a real SQLite file", () => {
  let dir: ReturnType<typeof tempDir>;
  let f: Fixture;
  let checker: { check(): HealthVerdict };

  beforeEach(async () => {
    dir = tempDir();
    const file = join(dir.path, "kintsugi.db");
    // A new file as the store's opener makes it: the key-value tables at their version.
    const db = openDatabase(file, [{ version: KV_SCHEMA_VERSION, name: "key-value store", sql: SQLITE_KV_TABLES }]);
    let clock = 0;
    const driver = new SqliteKvDriver(db, { description: file, close: () => db.close(), health: { clock: () => clock } });
    checker = { check: () => withoutBackend(driver.health()) };
    const fixture: Fixture = { db, file, driver, failNextWrite: null, advance: (ms) => (clock += ms), check: () => checker.check() };
    db.function("fail_if_told", () => {
      const err = fixture.failNextWrite;
      fixture.failNextWrite = null;
      if (err !== null) throw err;
      return null;
    });
    db.exec(`CREATE TEMP TRIGGER fail_insert AFTER INSERT ON kv BEGIN SELECT fail_if_told(); END;
      CREATE TEMP TRIGGER fail_update AFTER UPDATE ON kv BEGIN SELECT fail_if_told(); END;`);
    f = fixture;
    await put(f, "true");
  });
  afterEach(async () => {
    await f.driver.close();
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
