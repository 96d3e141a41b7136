import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { AutoRepairOutcomeStore } from "../../src/store/auto-repair-outcome-store.js";
import { openDatabase } from "../../src/store/database.js";
import { NOW } from "../support/fixtures.js";
import { tempDir } from "../support/temp-dir.js";

const outcome = (i: number) => ({
  time: NOW + i,
  trigger: "schedule" as const,
  machinesSeen: i,
  enqueued: [],
  skipped: [{ serial: `s${i}`, address: null, state: "UNHEALTHY", reason: "no address" }],
  shortCircuit: i % 2 === 0 ? { existingEntries: i, candidates: 1, limit: 0 } : null,
  error: i % 3 === 0 ? `failure ${i}` : null,
});

describe("AutoRepairOutcomeStore", () => {
  it("keeps the newest 1,000 outcomes across restarts, oldest first, with every field", () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "k.db");
      let db = openDatabase(file);
      let store = new AutoRepairOutcomeStore(db);
      db.transaction(() => {
        for (let i = 1; i <= 1005; i++) store.record(outcome(i));
      })();
      db.close();
      db = openDatabase(file);
      store = new AutoRepairOutcomeStore(db);
      const kept = store.last(null);
      assert.equal(kept.length, 1000);
      assert.deepEqual([kept[0]?.sequence, kept.at(-1)?.sequence], [6, 1005]);
      assert.deepEqual(store.last(2), [{ sequence: 1004, ...outcome(1004) }, { sequence: 1005, ...outcome(1005) }]);
      assert.deepEqual(store.last(0), []);
      db.close();
    } finally {
      dir.remove();
    }
  });
});
