import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openDatabase } from "../../../src/store/kv/sqlite/database.js";
import { MIGRATIONS } from "../../../src/store/kv/sqlite/old-tables/migrations/index.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { tempDir } from "../../support/temp-dir.js";

// A file written before migration 12, opened by today's kintsugi: migration 12 gives the old record its policy, then
// migration 13 converts the tables to the key-value store; the facts must survive both, read through the store's port.
describe("migration 12 (generation policy) on a file written before it, converted at open", () => {
  const dir = tempDir();
  let store: KintsugiStore;
  before(async () => {
    const file = join(dir.path, "kintsugi.db");
    const old = openDatabase(
      file,
      MIGRATIONS.filter((m) => m.version < 12),
    );
    old
      .prepare(
        `INSERT INTO cluster_generations (time, last_time, repeats, trigger, generation, cluster, changes, error)
      VALUES (?, ?, 1, 'schedule', 0, NULL, '[]', 'broken')`,
      )
      .run(NOW, NOW);
    old.close();
    store = await openSqliteStore({ path: file });
  });
  after(async () => {
    await store.close();
    dir.remove();
  });

  it("an old record reads as weighted, the only policy there was", () => {
    assert.equal(store.generations.latest()?.error, "broken");
    assert.equal(store.generations.latest()?.policy, "weighted");
  });

  it("an old weighted failure is folded with a weighted repeat, not with an all_healthy one", async () => {
    assert.equal((await store.generations.recordFailed(NOW + 1, "schedule", "broken")).repeated, true);
    assert.equal((await store.generations.recordFailed(NOW + 2, "schedule", "broken", "all_healthy")).repeated, false);
  });
});
