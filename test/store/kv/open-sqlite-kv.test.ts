import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { prefixRange } from "../../../src/store/kv/kv-driver.js";
import { KV_SCHEMA_VERSION, openSqliteKvDriver } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { SQLITE_KV_TABLES } from "../../../src/store/kv/sqlite/sqlite-kv-schema.js";
import { openDatabase } from "../../../src/store/kv/sqlite/database.js";
import { LEGACY_SCHEMA_VERSION, MIGRATIONS } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { tempDir } from "../../support/temp-dir.js";
import { typescriptEntry, typescriptLoader } from "../../support/typescript-child.js";

const OPENER = fileURLToPath(new URL("../../../src/store/kv/sqlite/open-sqlite-store.ts", import.meta.url));

/** What another process's attempt to open `file` says: "opened", or its error's message. */
function otherProcessOpens(file: string): Promise<string> {
  const script = `import(process.argv[1]).then((m) => { try { m.openSqliteKvDriver(process.argv[2]).close(); console.log("opened"); } catch (e) { console.log(e.message); } });`;
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [...typescriptLoader(), "-e", script, typescriptEntry(OPENER), file], (err, stdout) =>
      err ? reject(err) : resolve(stdout.trim()),
    );
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

describe("openSqliteKvDriver: a new file, a key-value file and an old-format file", () => {
  it("refuses a second open of the file, in this process and in another, until the first is closed", async () => {
    const dir = tempDir();
    const file = join(dir.path, "k.db");
    const driver = openSqliteKvDriver(file);
    try {
      assert.throws(() => openSqliteKvDriver(file), { name: "DatabaseOpenError", message: /is in use by another kintsugi process/ });
      assert.match(await otherProcessOpens(file), new RegExp(`in use by another kintsugi process \\(pid ${process.pid}\\)`));
      await driver.close();
      assert.equal(await otherProcessOpens(file), "opened");
    } finally {
      await driver.close();
      dir.remove();
    }
  });

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
      assert.equal(Math.max(...versionsOf(file)), LEGACY_SCHEMA_VERSION);
      // A stand-in for the real conversion (another change): it makes the kv tables with one key.
      let conversions = 0;
      const conversion = (old: string) => {
        conversions++;
        const sql = `${SQLITE_KV_TABLES} INSERT INTO kv VALUES ('/kintsugi/converted', x'', 1, 1);`;
        openDatabase(old, [...MIGRATIONS, { version: KV_SCHEMA_VERSION, name: "convert", sql }]).close();
      };
      const converted = openSqliteKvDriver(file, { conversion });
      try {
        assert.equal(await converted.count("count", prefixRange("/kintsugi/")), 1);
      } finally {
        await converted.close();
      }
      const again = openSqliteKvDriver(file, { conversion });
      await again.close();
      assert.deepEqual(versionsOf(file).slice(-2), [LEGACY_SCHEMA_VERSION, KV_SCHEMA_VERSION]);
      assert.equal(conversions, 1, "converted once");
    } finally {
      dir.remove();
    }
  });

  it("refuses a file that is not a database, naming it, and leaves it as it was", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "garbage.db");
      const garbage = "not a database ".repeat(400);
      writeFileSync(file, garbage);
      assert.throws(() => openSqliteKvDriver(file), {
        name: "DatabaseOpenError",
        message: new RegExp(`^cannot open database ${file}: file is not a database`),
      });
      assert.equal(readFileSync(file, "utf8"), garbage);
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
