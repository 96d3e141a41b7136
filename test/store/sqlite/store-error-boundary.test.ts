import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { asStoreError } from "../../../src/store/sqlite/database-failure.js";
import { openSqliteStore } from "../../../src/store/sqlite/open-sqlite-store.js";
import { withStoreErrors } from "../../../src/store/sqlite/store-error-boundary.js";
import { StoreBusyError, StoreUnavailableError } from "../../../src/store/store-errors.js";
import { tempDir } from "../../support/temp-dir.js";

const sqliteError = (code: string) => new Database.SqliteError(`${code.toLowerCase()} at /secret/path`, code);
const other = new Error("boom");

describe("asStoreError: SQLite's failures in the store's words", () => {
  const cases: Array<{ name: string; err: unknown; want: typeof StoreBusyError | typeof StoreUnavailableError | "itself"; message?: RegExp }> = [
    { name: "busy", err: sqliteError("SQLITE_BUSY"), want: StoreBusyError, message: /^the database is busy: .*nothing was changed, try again$/ },
    { name: "busy, extended code", err: sqliteError("SQLITE_BUSY_SNAPSHOT"), want: StoreBusyError },
    { name: "read-only", err: sqliteError("SQLITE_READONLY"), want: StoreUnavailableError, message: /^the database cannot be used \(read-only\)/ },
    { name: "a full disk", err: sqliteError("SQLITE_FULL"), want: StoreUnavailableError, message: /\(full\)/ },
    { name: "an I/O error", err: sqliteError("SQLITE_IOERR_WRITE"), want: StoreUnavailableError, message: /\(io\)/ },
    { name: "corruption", err: sqliteError("SQLITE_NOTADB"), want: StoreUnavailableError, message: /\(corrupt\)/ },
    { name: "a constraint, which is no failure of the file", err: sqliteError("SQLITE_CONSTRAINT_UNIQUE"), want: "itself" },
    { name: "an error that is not SQLite's", err: other, want: "itself" },
    { name: "a thrown string", err: "boom", want: "itself" },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = asStoreError(c.err);
      if (c.want === "itself") return assert.equal(got, c.err);
      assert.ok(got instanceof c.want, `${String(got)} is not a ${c.want.name}`);
      assert.equal((got as Error).cause, c.err, "the SQLite error is kept as the cause, for the log");
      assert.doesNotMatch((got as Error).message, /secret|SQLITE/, "the message names no path and no SQLite code");
      if (c.message) assert.match((got as Error).message, c.message);
    });
  }
});

describe("withStoreErrors", () => {
  class Part {
    private readonly code = "SQLITE_BUSY";
    calls = 0;
    read(): number {
      this.calls++;
      return this.calls;
    }
    failAtOnce(): never {
      throw sqliteError(this.code);
    }
    async failLater(): Promise<never> {
      throw sqliteError("SQLITE_READONLY");
    }
    async failOtherwise(): Promise<never> {
      throw other;
    }
  }
  const cases: Array<{ name: string; run: (p: Part) => unknown; want: typeof StoreBusyError | typeof StoreUnavailableError | Error }> = [
    { name: "a synchronous throw", run: (p) => p.failAtOnce(), want: StoreBusyError },
    { name: "a rejection", run: (p) => p.failLater(), want: StoreUnavailableError },
    { name: "another error, unchanged", run: (p) => p.failOtherwise(), want: other },
  ];
  for (const c of cases) {
    it(`translates ${c.name}`, async () => {
      const part = withStoreErrors(new Part());
      await assert.rejects(
        async () => c.run(part),
        (err: unknown) => (c.want instanceof Error ? err === c.want : err instanceof c.want),
      );
    });
  }

  it("runs methods on the part itself, and passes results and properties through", () => {
    const inner = new Part();
    const part = withStoreErrors(inner);
    assert.equal(part.read(), 1);
    assert.equal(part.read(), 2);
    assert.equal(inner.calls, 2);
    assert.equal(part.calls, 2);
    assert.ok(part instanceof Part);
  });

  it("makes the opened store answer a write under another process's write lock with StoreBusyError, then write again", async () => {
    const dir = tempDir();
    const path = join(dir.path, "k.db");
    const store = openSqliteStore({ path });
    try {
      const holder = new Database(path);
      holder.exec("BEGIN IMMEDIATE");
      try {
        await assert.rejects(store.settings.setRepairQueueEnabled(false), StoreBusyError);
        assert.equal(store.settings.repairQueueEnabled(), true, "reads go on");
      } finally {
        holder.exec("ROLLBACK");
        holder.close();
      }
      await store.settings.setRepairQueueEnabled(false);
      assert.equal(store.settings.repairQueueEnabled(), false);
    } finally {
      await store.close();
      dir.remove();
    }
  });
});
