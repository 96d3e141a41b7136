import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import Database from "better-sqlite3";
import { encodeValue, STORE_SCHEMA_VERSION } from "../../../src/store/core/store-values.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import { ACTOR, newEntry } from "../conformance/store-harness.js";
import { NOW } from "../../support/fixtures.js";
import { tempDir } from "../../support/temp-dir.js";

const HISTORY = (index: number) => `/kintsugi/history/${String(index).padStart(16, "0")}/`;

/** The file's pairs under `prefix`, as text. */
function pairs(file: string, prefix: string): Array<{ key: string; value: string }> {
  const db = new Database(file, { readonly: true });
  try {
    return (
      db.prepare("SELECT key, value FROM kv WHERE key >= ? AND key < ? ORDER BY key").all(prefix, `${prefix}\uffff`) as Array<{ key: string; value: Buffer }>
    ).map((r) => ({ key: r.key, value: r.value.toString("utf8") }));
  } finally {
    db.close();
  }
}

describe("a store written by a version-1 kintsugi (history values with the whole entry)", () => {
  it("opens, moves the schema key to this version, reads the old records as they were and writes new ones in the smaller format", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "kintsugi.db");
      let store = await openSqliteStore({ path: file });
      const added = await store.entries.add(newEntry("10.0.0.1"), "added by an operator", NOW, ACTOR);
      const index = added.entry.index;
      const before = await store.entries.history(index);
      await store.close();
      // As version 1 left it: the schema key at 1, the record with the entry after it.
      const db = new Database(file);
      db.prepare("UPDATE kv SET value = ? WHERE key = '/kintsugi/schema'").run(Buffer.from(JSON.stringify({ v: 1 })));
      db.prepare("UPDATE kv SET value = ? WHERE key = ?").run(
        Buffer.from(encodeValue({ record: before[0], entry: added.entry })),
        `${HISTORY(index)}${String(before[0]!.sequence).padStart(16, "0")}`,
      );
      db.close();

      store = await openSqliteStore({ path: file });
      try {
        assert.deepEqual(pairs(file, "/kintsugi/schema"), [{ key: "/kintsugi/schema", value: JSON.stringify({ v: STORE_SCHEMA_VERSION }) }]);
        assert.deepEqual(await store.entries.history(index), before, "the old record read as it was written");
        const changed = await store.entries.change(
          index,
          (e) =>
            e && [{ entry: { ...e, status: "processing", step: 1, stepStatus: "waiting", lastTransitionTime: NOW + 1 }, kind: "transition", reason: "step 1" }],
          NOW + 1,
          ACTOR,
        );
        assert.equal(changed.length, 1);
        const stored = pairs(file, HISTORY(index));
        assert.equal(stored.length, 2);
        assert.match(stored[0]!.value, /^\{"v":1,"record":/, "the old record left as it was");
        assert.match(stored[1]!.value, /^\{"v":2,"t":/, "the new one in the smaller format");
        assert.deepEqual(
          (await store.entries.history(index)).map((r) => [r.kind, r.status, r.step]),
          [
            ["created", "queued", 0],
            ["transition", "processing", 1],
          ],
        );
      } finally {
        await store.close();
      }
    } finally {
      dir.remove();
    }
  });

  it("is refused when its schema key is newer than this kintsugi's", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "kintsugi.db");
      await (await openSqliteStore({ path: file })).close();
      const db = new Database(file);
      db.prepare("UPDATE kv SET value = ? WHERE key = '/kintsugi/schema'").run(Buffer.from(JSON.stringify({ v: STORE_SCHEMA_VERSION + 1 })));
      db.close();
      await assert.rejects(openSqliteStore({ path: file }), {
        message: new RegExp(`has schema version ${STORE_SCHEMA_VERSION + 1}, newer than this kintsugi knows`),
      });
    } finally {
      dir.remove();
    }
  });
});
