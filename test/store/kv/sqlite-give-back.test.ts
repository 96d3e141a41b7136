import assert from "node:assert/strict";
import { statSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { prefixRange } from "../../../src/store/kv/kv-driver.js";
import { openSqliteKvDriver } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { GIVE_BACK_PAGES } from "../../../src/store/kv/sqlite/sqlite-kv-driver.js";
import { tempDir } from "../../support/temp-dir.js";

const freePages = (file: string) => {
  const db = new Database(file, { readonly: true });
  try {
    return db.pragma("freelist_count", { simple: true }) as number;
  } finally {
    db.close();
  }
};

describe("the SQLite store gives freed pages back to the file system", () => {
  // Values of about a page each: the pages a delete frees are about the keys deleted.
  const cases: ReadonlyArray<{ name: string; keys: number; givenBack: boolean }> = [
    { name: "a delete that frees more than the threshold: the file shrinks, no page left free", keys: GIVE_BACK_PAGES * 2, givenBack: true },
    { name: "a delete that frees less: the pages stay free for the next writes (no extra write)", keys: GIVE_BACK_PAGES / 4, givenBack: false },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const dir = tempDir();
      try {
        const file = join(dir.path, "kintsugi.db");
        const driver = openSqliteKvDriver(file);
        try {
          const value = Buffer.alloc(4000, 120);
          for (let i = 0; i < c.keys; i += 50) {
            const puts = Array.from({ length: Math.min(50, c.keys - i) }, (_, k) => ({ key: `/kintsugi/bulk/${String(i + k).padStart(8, "0")}`, value }));
            await driver.txn("filling", { compares: [], puts, deletes: [], reads: [] });
          }
          await driver.txn("checkpoint", { compares: [], puts: [{ key: "/kintsugi/kept", value: "x" }], deletes: [], reads: [] });
          const full = statSync(file).size + statSync(`${file}-wal`).size;
          await driver.txn("emptying", { compares: [], puts: [], deletes: [prefixRange("/kintsugi/bulk/")], reads: [] });
          const free = freePages(file);
          if (c.givenBack) {
            assert.equal(free, 0, "every freed page given back");
            const db = new Database(file);
            db.pragma("wal_checkpoint(TRUNCATE)");
            db.close();
            assert.ok(statSync(file).size < full / 2, `the file shrank: ${statSync(file).size} of ${full} bytes`);
          } else assert.ok(free > 0 && free < GIVE_BACK_PAGES, `${free} pages left free`);
        } finally {
          await driver.close();
        }
      } finally {
        dir.remove();
      }
    });
  }
});
