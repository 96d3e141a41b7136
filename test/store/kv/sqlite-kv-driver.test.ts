import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { prefixRange, type KvDriver, type KvEvent } from "../../../src/store/kv/kv-driver.js";
import { KV_SCHEMA_VERSION, openSqliteKvDriver } from "../../../src/store/kv/open-sqlite-kv.js";
import { SQLITE_KV_PREFIX, SQLITE_KV_TABLES } from "../../../src/store/kv/sqlite-kv-schema.js";
import { StoreBusyError, StoreUnavailableError } from "../../../src/store/store-errors.js";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { NEWEST_SCHEMA_VERSION } from "../../../src/store/sqlite/migrations/index.js";
import { tempDir } from "../../support/temp-dir.js";
import { driverContract, type OpenedKvDriver } from "./driver-contract-cases.js";
import { putAll, RecordingSink, revisionOf } from "./driver-contract-support.js";

const OPENER = fileURLToPath(new URL("../../../src/store/kv/open-sqlite-kv.ts", import.meta.url));

/** A store in a fresh temporary file, as the contract's factory gives it. */
async function openTemp(): Promise<OpenedKvDriver & { readonly file: string }> {
  const dir = tempDir();
  const file = join(dir.path, "kintsugi.db");
  let driver: KvDriver = openSqliteKvDriver(file);
  return {
    file,
    get driver() {
      return driver;
    },
    prefix: SQLITE_KV_PREFIX,
    async reopen() {
      await driver.close();
      driver = openSqliteKvDriver(file);
      return driver;
    },
    async dispose() {
      await driver.close();
      dir.remove();
    },
  };
}

driverContract("sqlite", { keepsRevisions: false }, openTemp);

/** What another process's attempt to open `file` says: "opened", or its error's message. */
function otherProcessOpens(file: string): Promise<string> {
  const script = `import(process.argv[1]).then((m) => { try { m.openSqliteKvDriver(process.argv[2]).close(); console.log("opened"); } catch (e) { console.log(e.message); } });`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--import", "tsx", "-e", script, OPENER, file], (err, stdout) => (err ? reject(err) : resolve(stdout.trim())));
  });
}

const tablesOf = (file: string): string[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare<[], string>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
  } finally {
    db.close();
  }
};

const versionsOf = (file: string): number[] => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare<[], number>("SELECT version FROM schema_version ORDER BY version").pluck().all();
  } finally {
    db.close();
  }
};

describe("the SQLite key-value driver, beyond the contract", () => {
  it("refuses a second open of the file, in this process and in another, until the first is closed", async () => {
    const store = await openTemp();
    try {
      assert.throws(() => openSqliteKvDriver(store.file), { name: "DatabaseOpenError", message: /is in use by another kintsugi process/ });
      assert.match(await otherProcessOpens(store.file), new RegExp(`in use by another kintsugi process \\(pid ${process.pid}\\)`));
      await store.driver.close();
      assert.equal(await otherProcessOpens(store.file), "opened");
    } finally {
      await store.dispose();
    }
  });

  it("answers a write under another connection's write lock with StoreBusyError and writes nothing; reads go on", async () => {
    const store = await openTemp();
    const { driver, prefix } = store;
    try {
      await putAll(driver, { [`${prefix}a`]: "1" });
      const holder = new Database(store.file);
      holder.exec("BEGIN IMMEDIATE");
      try {
        const write = { compares: [], puts: [{ key: `${prefix}a`, value: "2" }], deletes: [prefixRange(`${prefix}b`)], reads: [] };
        await assert.rejects(driver.txn("set a", write), (err: unknown) => {
          assert.ok(err instanceof StoreBusyError, String(err));
          assert.match(err.message, /^set a: the database is busy: .*nothing was changed/);
          assert.doesNotMatch(err.message, /kintsugi\.db|SQLITE/, "no path and no SQLite code for API clients");
          return true;
        });
        assert.equal((await driver.get("get", `${prefix}a`)).kv?.value.toString("utf8"), "1", "reads go on");
        assert.deepEqual(driver.health(), { backend: "sqlite", healthy: true }, "a lock is no verdict on the file");
      } finally {
        holder.exec("ROLLBACK");
        holder.close();
      }
      assert.equal(await revisionOf(driver, prefix), 1, "the busy write did not advance the revision");
      assert.equal(await putAll(driver, { [`${prefix}a`]: "2" }), 2);
    } finally {
      await store.dispose();
    }
  });

  it("answers any SQLite error as StoreUnavailableError, with SQLite's error as the cause", async () => {
    const store = await openTemp();
    try {
      const other = new Database(store.file);
      other.exec("DROP TABLE kv");
      other.close();
      await assert.rejects(store.driver.get("get", "/kintsugi/a"), (err: unknown) => {
        assert.ok(err instanceof StoreUnavailableError, String(err));
        assert.match(err.message, /^get: the database cannot be used/);
        assert.equal((err.cause as { code?: string }).code, "SQLITE_ERROR");
        return true;
      });
    } finally {
      await store.dispose();
    }
  });

  it("keeps revision order for every watch when a sink writes from inside its delivery", async () => {
    const store = await openTemp();
    const { driver, prefix } = store;
    try {
      const other = new RecordingSink(1);
      let written: Promise<unknown> | null = null;
      const writing = new (class extends RecordingSink {
        override events(revision: number, events: readonly KvEvent[]): void {
          super.events(revision, events);
          // The core's mirror may react to a commit with a write of its own, before the other sinks were told.
          if (revision === 1) written = driver.txn("reaction", { compares: [], puts: [{ key: `${prefix}b`, value: "2" }], deletes: [], reads: [] });
        }
      })(1);
      await driver.watch(prefixRange(prefix), 1, writing);
      await driver.watch(prefixRange(prefix), 1, other);
      await putAll(driver, { [`${prefix}a`]: "1" });
      await written;
      for (const sink of [writing, other]) assert.deepEqual(sink.lines(prefix, 0), ["@1 put a=1", "@2 put b=2"]);
    } finally {
      await store.dispose();
    }
  });

  it("after close, refuses calls as unavailable, says so on /health, and closes the file once", async () => {
    const dir = tempDir();
    try {
      const driver = openSqliteKvDriver(join(dir.path, "k.db"));
      await driver.close();
      await driver.close();
      await assert.rejects(driver.get("get", "/kintsugi/a"), StoreUnavailableError);
      await assert.rejects(driver.txn("put", { compares: [], puts: [], deletes: [], reads: [] }), StoreUnavailableError);
      assert.equal(driver.health().healthy, false);
    } finally {
      dir.remove();
    }
  });
});

describe("openSqliteKvDriver: a new file, a key-value file and an old-format file", () => {
  it("gives a new file only the key-value tables, recorded at the key-value format's version, once", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "new.db");
      await openSqliteKvDriver(file).close();
      await openSqliteKvDriver(file).close();
      assert.deepEqual(tablesOf(file), ["kv", "kv_revision", "schema_version"], "none of the old tables of migrations 1-12");
      assert.deepEqual(versionsOf(file), [KV_SCHEMA_VERSION]);
    } finally {
      dir.remove();
    }
  });

  it("refuses a file of the old tables, untouched, when it has no conversion; converts it once with one", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "old.db");
      openDatabase(file).close();
      const oldTables = tablesOf(file);
      assert.throws(() => openSqliteKvDriver(file), {
        name: "DatabaseOpenError",
        message: /holds kintsugi's old tables \(schema version 12\).*left the file as it was/,
      });
      assert.deepEqual(tablesOf(file), oldTables);
      assert.equal(Math.max(...versionsOf(file)), NEWEST_SCHEMA_VERSION);
      // A stand-in for the real conversion (another change): it makes the kv tables with one key.
      const conversion = { version: KV_SCHEMA_VERSION, name: "convert", sql: `${SQLITE_KV_TABLES} INSERT INTO kv VALUES ('/kintsugi/converted', x'', 1, 1);` };
      const converted = openSqliteKvDriver(file, { conversion });
      try {
        assert.equal(await converted.count("count", prefixRange("/kintsugi/")), 1);
      } finally {
        await converted.close();
      }
      const again = openSqliteKvDriver(file, { conversion });
      await again.close();
      assert.deepEqual(versionsOf(file).slice(-2), [NEWEST_SCHEMA_VERSION, KV_SCHEMA_VERSION], "converted once");
    } finally {
      dir.remove();
    }
  });

  it("refuses a file of a newer kintsugi", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "newer.db");
      await openSqliteKvDriver(file).close();
      const db = new Database(file);
      db.prepare("INSERT INTO schema_version VALUES (?, 'newer', '')").run(KV_SCHEMA_VERSION + 1);
      db.close();
      assert.throws(() => openSqliteKvDriver(file), { name: "DatabaseOpenError", message: /newer than this kintsugi knows/ });
    } finally {
      dir.remove();
    }
  });
});
