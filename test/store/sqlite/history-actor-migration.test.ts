import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openDatabase } from "../../../src/store/kv/sqlite/database.js";
import { MIGRATIONS } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { tempDir } from "../../support/temp-dir.js";

/** History records as kintsugi wrote them before migration 4, and the actor each should get. */
const OLD_RECORDS: Array<[name: string, kind: string, reason: string, actor: string]> = [
  ["an API creation: its token was not recorded", "created", "added by an operator", "unknown"],
  ["sabakan's creation", "created", "enqueued by sabakan-triggered repair: machine a001 is UNHEALTHY (for 600 s)", "sabakan"],
  [
    "a health check's creation, named as the entry's source",
    "created",
    "enqueued by health check kubelet: node n1 has Ready=False for more than 300 s",
    "health-check:kubelet",
  ],
  [
    "a health check's creation whose name has a colon",
    "created",
    "enqueued by health check a:b: node n1 has Ready=False for more than 300 s",
    "health-check:a:b",
  ],
  ["a creation saying 'health check' without a name", "created", "enqueued by health check : node n1 has Ready=False", "unknown"],
  ["the runner's transition", "transition", "step 1: draining node n1", "kintsugi"],
  ["the runner's note", "note", "step 1: repair command failed", "kintsugi"],
  ["an API deletion request", "delete-requested", "deletion requested by an operator", "unknown"],
  ["the runner's dequeue", "dequeued", "dequeued after deletion was requested", "kintsugi"],
  ["an API back-off reset", "backoff-reset", "drain back-off reset by an operator", "unknown"],
];

// A file written before migration 4, opened by today's kintsugi: migrations 4-12 backfill the actors, then migration
// 13 converts the tables to the key-value store; the facts must survive both, read through the store's port.
describe("migration 4 (history actor) on a file written before it, converted at open", () => {
  const dir = tempDir();
  let store: KintsugiStore;
  before(async () => {
    const file = join(dir.path, "kintsugi.db");
    const old = openDatabase(
      file,
      MIGRATIONS.filter((m) => m.version < 4),
    );
    const insert = old.prepare(`INSERT INTO repair_history (entry_index, time, kind, reason, detail, status, step, step_status, deleted)
      VALUES (?, ?, ?, ?, 'kept detail', 'processing', 0, 'watching', 0)`);
    OLD_RECORDS.forEach(([, kind, reason], i) => insert.run(i + 1, NOW + i, kind, reason));
    // The entries were dequeued long ago; AUTOINCREMENT remembers the indexes it handed out, as the old store left it.
    old.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('repair_entries', ?)").run(OLD_RECORDS.length);
    old.close();
    store = await openSqliteStore({ path: file });
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  OLD_RECORDS.forEach(([name, kind, reason, actor], i) => {
    it(`${name}: ${actor}, every other field as it was`, async () => {
      assert.deepEqual(await store.entries.history(i + 1), [
        {
          sequence: i + 1,
          entryIndex: i + 1,
          time: NOW + i,
          kind,
          reason,
          detail: "kept detail",
          status: "processing",
          step: 0,
          stepStatus: "watching",
          deleted: false,
          actor,
        },
      ]);
    });
  });
});
