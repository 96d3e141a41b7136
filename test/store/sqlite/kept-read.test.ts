import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { openDatabase, type Db } from "../../../src/store/sqlite/database.js";
import { deepFreeze, KeptRead } from "../../../src/store/sqlite/kept-read.js";
import { tempDir } from "../../support/temp-dir.js";

describe("KeptRead on a real SQLite file", () => {
  let dir: ReturnType<typeof tempDir>;
  let file: string;
  let db: Db;
  let reads: number;
  let kept: KeptRead<string>;
  const read = () => (db.prepare("SELECT value FROM settings WHERE key = 'v'").pluck().get() as string | undefined) ?? "none";
  const value = () => kept.get();
  const write = (connection: Db, v: string) =>
    connection.prepare("INSERT INTO settings (key, value) VALUES ('v', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(v);

  beforeEach(() => {
    dir = tempDir();
    file = join(dir.path, "kintsugi.db");
    db = openDatabase(file);
    reads = 0;
    kept = new KeptRead(db, () => {
      reads++;
      return read();
    });
  });
  afterEach(() => {
    db.close();
    dir.remove();
  });

  it("reads once while nothing changes", () => {
    write(db, "a");
    assert.deepEqual([value(), value(), value()], ["a", "a", "a"]);
    assert.equal(reads, 1);
  });

  const changes: Array<[string, () => void, string]> = [
    ["a write through the same connection (any statement, any store)", () => write(db, "b"), "b"],
    [
      "a commit by another connection",
      () => {
        const other = openDatabase(file);
        write(other, "c");
        other.close();
      },
      "c",
    ],
    [
      "a rolled-back transaction: the committed value again",
      () =>
        assert.throws(() =>
          db.transaction(() => {
            write(db, "d");
            assert.equal(value(), "d", "the transaction sees its own write");
            throw new Error("roll back");
          })(),
        ),
      "a",
    ],
  ];
  for (const [name, change, want] of changes) {
    it(`reads again after ${name}`, () => {
      write(db, "a");
      assert.equal(value(), "a");
      change();
      assert.equal(value(), want);
    });
  }

  it("neither keeps nor serves inside a transaction", () => {
    write(db, "a");
    value();
    db.transaction(() => {
      assert.equal(value(), "a");
      assert.equal(value(), "a");
    })();
    assert.equal(reads, 3);
  });

  it("a second KeptRead on the same connection sees writes made beside it", () => {
    write(db, "a");
    const other = new KeptRead(db, read);
    assert.equal(other.get(), "a");
    assert.equal(value(), "a");
    write(db, "e");
    assert.deepEqual([other.get(), value()], ["e", "e"]);
  });

  it("deep-freezes what it keeps", () => {
    const v = new KeptRead(db, () => ({ having: { roles: ["boot"] } })).get();
    assert.ok(Object.isFrozen(v) && Object.isFrozen(v.having) && Object.isFrozen(v.having.roles));
    assert.throws(() => (v.having.roles as string[]).push("x"), TypeError);
    assert.equal(deepFreeze(null), null);
  });
});
