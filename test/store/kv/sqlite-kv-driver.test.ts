import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { prefixRange, type KvDriver, type KvEvent } from "../../../src/store/kv/kv-driver.js";
import { openSqliteKvDriver } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { SqliteKvDriver } from "../../../src/store/kv/sqlite/sqlite-kv-driver.js";
import { SQLITE_KV_PREFIX } from "../../../src/store/kv/sqlite/sqlite-kv-schema.js";
import { StoreBusyError, StoreUnavailableError } from "../../../src/store/store-errors.js";
import { tempDir } from "../../support/temp-dir.js";
import { driverContract, type OpenedKvDriver } from "./driver-contract-cases.js";
import { putAll, RecordingSink, revisionOf } from "./driver-contract-support.js";

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

describe("the SQLite key-value driver, beyond the contract", () => {
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

  it("on a file it cannot write, answers writes as unavailable (read-only) and says so on /health; reads go on", async () => {
    const store = await openTemp();
    try {
      await putAll(store.driver, { "/kintsugi/a": "1" });
      await store.driver.close();
      const db = new Database(store.file, { readonly: true });
      const driver = new SqliteKvDriver(db, { description: store.file, close: () => db.close() });
      try {
        const write = driver.txn("set a", { compares: [], puts: [{ key: "/kintsugi/a", value: "2" }], deletes: [], reads: [] });
        await assert.rejects(write, { name: "StoreUnavailableError", message: /^set a: the database cannot be used \(read-only\)/ });
        assert.equal((await driver.get("get", "/kintsugi/a")).kv?.value.toString("utf8"), "1");
        const health = driver.health();
        assert.ok(!health.healthy && health.reason.startsWith(`database ${store.file} is read-only`), JSON.stringify(health));
      } finally {
        await driver.close();
      }
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
