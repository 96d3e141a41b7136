import assert from "node:assert/strict";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { GraphQLError } from "graphql";
import { formatError } from "../../src/graphql/errors.js";
import { HoldRefusedError, NotLeaderError, StoreBusyError, StoreConflictError, StoreLimitError, StoreUnavailableError } from "../../src/store/store-errors.js";

/** What Apollo hands formatError for an error thrown in a resolver at `repairQueueEnabled`. */
function thrownAt(err: unknown) {
  const wrapped = new GraphQLError(err instanceof Error ? err.message : String(err), {
    originalError: err instanceof Error ? err : undefined,
    path: ["repairQueueEnabled"],
  });
  return { formatted: { message: wrapped.message, path: ["repairQueueEnabled"], extensions: { code: "INTERNAL_SERVER_ERROR" } }, wrapped };
}

function format(err: unknown) {
  const logged: unknown[] = [];
  const { formatted, wrapped } = thrownAt(err);
  return { out: formatError((e) => logged.push(e))(formatted, wrapped), logged };
}

describe("the store's errors map once to the API's codes, whichever backend threw them", () => {
  const cases: Array<{ name: string; err: Error; type: string; logged: boolean }> = [
    { name: "busy", err: new StoreBusyError("the database is busy"), type: "STORE_BUSY", logged: false },
    {
      name: "unavailable (SQLite or etcd), logged with its cause",
      err: new StoreUnavailableError("the database cannot be used (full)", { cause: new Error("disk") }),
      type: "STORE_UNAVAILABLE",
      logged: true,
    },
    { name: "conflict", err: new StoreConflictError("kept conflicting"), type: "STORE_CONFLICT", logged: false },
    { name: "limit", err: new StoreLimitError("too large"), type: "STORE_LIMIT", logged: false },
    { name: "not the leader", err: new NotLeaderError("ask the leader"), type: "NOT_LEADER", logged: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { out, logged } = format(c.err);
      assert.deepEqual(out, { message: c.err.message, path: ["repairQueueEnabled"], extensions: { type: c.type, code: c.type } });
      assert.equal(logged.length, c.logged ? 1 : 0);
    });
  }

  const masked: Array<{ name: string; err: Error }> = [
    {
      name: "a SQLite error that escaped the store (no code of SQLite's reaches a client)",
      err: new Database.SqliteError("disk I/O error at /var/lib/kintsugi/k.db", "SQLITE_IOERR_WRITE"),
    },
    { name: "a hold refusal that no resolver turned into INVALID_HOLD", err: new HoldRefusedError("not held") },
  ];
  for (const c of masked) {
    it(`masks ${c.name} as INTERNAL_SERVER_ERROR and logs it`, () => {
      const { out, logged } = format(c.err);
      assert.deepEqual(out, {
        message: "internal server error",
        path: ["repairQueueEnabled"],
        extensions: { type: "INTERNAL_SERVER_ERROR", code: "INTERNAL_SERVER_ERROR" },
      });
      assert.equal(logged.length, 1);
    });
  }
});
