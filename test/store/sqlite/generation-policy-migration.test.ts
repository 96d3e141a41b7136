import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { SqliteGenerationStore } from "../../../src/store/sqlite/cluster-generation-store.js";
import { openDatabase, type Db } from "../../../src/store/sqlite/database.js";
import { MIGRATIONS } from "../../../src/store/sqlite/migrations/index.js";
import { SqliteCommits } from "../../../src/store/sqlite/sqlite-commits.js";
import { NOW } from "../../support/fixtures.js";
import { tempDir } from "../../support/temp-dir.js";

describe("migration 12 (generation policy) on a database written before it", () => {
  const dir = tempDir();
  let db: Db;
  let store: SqliteGenerationStore;
  before(() => {
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
    db = openDatabase(file);
    store = new SqliteGenerationStore(db, new SqliteCommits(db));
  });
  after(() => {
    db.close();
    dir.remove();
  });

  it("an old record reads as weighted, the only policy there was", () => assert.equal(store.latest()?.policy, "weighted"));

  it("an old weighted failure is folded with a weighted repeat, not with an all_healthy one", async () => {
    assert.equal((await store.recordFailed(NOW + 1, "schedule", "broken")).repeated, true);
    assert.equal((await store.recordFailed(NOW + 2, "schedule", "broken", "all_healthy")).repeated, false);
  });

  it("refuses a policy it does not know", () => {
    assert.throws(() => db.prepare("UPDATE cluster_generations SET policy = 'random'").run(), /CHECK constraint failed/);
  });
});
