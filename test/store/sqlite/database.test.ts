import assert from "node:assert/strict";
import { chmodSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { openDatabase, schemaVersion } from "../../../src/store/kv/sqlite/database.js";
import { DatabaseOpenError } from "../../../src/store/store-errors.js";
import { MIGRATIONS } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { tempDir } from "../../support/temp-dir.js";

describe("openDatabase", () => {
  it("uses WAL with synchronous=FULL and records the schema version", () => {
    const dir = tempDir();
    try {
      const db = openDatabase(join(dir.path, "kintsugi.db"));
      assert.equal(db.pragma("journal_mode", { simple: true }), "wal");
      assert.equal(db.pragma("synchronous", { simple: true }), 2);
      assert.equal(schemaVersion(db), MIGRATIONS.at(-1)?.version);
      db.close();
    } finally {
      dir.remove();
    }
  });

  it("names the file and the cause when the path cannot be written", () => {
    const dir = tempDir();
    try {
      writeFileSync(join(dir.path, "file"), "not a directory");
      assert.throws(
        () => openDatabase(join(dir.path, "file", "kintsugi.db")),
        (err: Error) => {
          assert.ok(err instanceof DatabaseOpenError);
          assert.match(err.message, /cannot open database .*file\/kintsugi\.db: /);
          return true;
        },
      );
    } finally {
      dir.remove();
    }
  });

  it("refuses a read-only database directory with a clear message", { skip: process.getuid?.() === 0 ? "root can write anywhere" : false }, () => {
    const dir = tempDir();
    try {
      chmodSync(dir.path, 0o500);
      assert.throws(() => openDatabase(join(dir.path, "kintsugi.db")), /cannot open database/);
    } finally {
      chmodSync(dir.path, 0o700);
      dir.remove();
    }
  });

  it("refuses a database written by a newer kintsugi and leaves it untouched", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "kintsugi.db");
      const db = openDatabase(file);
      db.prepare("INSERT INTO schema_version (version, name, applied_at) VALUES (99, 'future', 'x')").run();
      db.close();
      assert.throws(() => openDatabase(file), /schema version 99, newer than this kintsugi knows/);
      const again = openDatabase(file, [...MIGRATIONS, { version: 99, name: "future", sql: "" }]);
      assert.equal(schemaVersion(again), 99);
      again.close();
    } finally {
      dir.remove();
    }
  });

  it("is not a file that SQLite can read: says so", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "garbage.db");
      writeFileSync(file, "this is not a database, but it is long enough to have a header".repeat(10));
      assert.throws(() => openDatabase(file), /cannot open database .*garbage\.db: file is not a database/);
    } finally {
      dir.remove();
    }
  });
});
