import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, it } from "node:test";
import { SqliteOutcomeStore } from "../../../src/store/sqlite/auto-repair-outcome-store.js";
import { openDatabase } from "../../../src/store/sqlite/database.js";
import { SqliteCommits } from "../../../src/store/sqlite/sqlite-commits.js";
import { NOW } from "../../support/fixtures.js";
import { tempDir } from "../../support/temp-dir.js";

const outcome = (i: number) => ({
  time: NOW + i,
  trigger: "schedule" as const,
  machinesSeen: i,
  enqueued: [],
  skipped: [{ serial: `s${i}`, address: null, state: "UNHEALTHY", reason: "no address", kind: "no_address" as const, rack: i % 3 }],
  shortCircuit: i % 2 === 0 ? { existingEntries: i, candidates: 1, limit: 0 } : null,
  error: i % 3 === 0 ? `failure ${i}` : null,
});

describe("SqliteOutcomeStore", () => {
  it("keeps the newest 1,000 outcomes across restarts, oldest first, with every field", async () => {
    const dir = tempDir();
    try {
      const file = join(dir.path, "k.db");
      let db = openDatabase(file);
      let commits = new SqliteCommits(db);
      let store = new SqliteOutcomeStore(db, commits);
      assert.deepEqual(await store.record(outcome(1)), { sequence: 1, ...outcome(1) });
      // One write for the rest: a transaction each would cost a thousand fsyncs.
      commits.write((draft) => {
        for (let i = 2; i <= 1005; i++) store.append(draft, outcome(i));
      });
      db.close();
      db = openDatabase(file);
      commits = new SqliteCommits(db);
      store = new SqliteOutcomeStore(db, commits);
      const kept = await store.last(null);
      assert.equal(kept.length, 1000);
      assert.deepEqual([kept[0]?.sequence, kept.at(-1)?.sequence], [6, 1005]);
      assert.deepEqual(await store.last(2), [
        { sequence: 1004, ...outcome(1004) },
        { sequence: 1005, ...outcome(1005) },
      ]);
      assert.deepEqual(await store.last(0), []);
      db.close();
    } finally {
      dir.remove();
    }
  });

  it("reads the kind of a skip kept before kinds and racks were from its reason, and no rack", async () => {
    const dir = tempDir();
    try {
      const db = openDatabase(join(dir.path, "k.db"));
      const legacy = [
        { serial: "s1", address: "10.0.0.1", state: "UNHEALTHY", reason: "rack 3: 4 unhealthy machines, likely an infrastructure failure" },
        { serial: "s2", address: "10.0.0.2", state: "UNHEALTHY", reason: "too many repair requests" },
      ];
      db.prepare(
        "INSERT INTO auto_repair_outcomes (time, trigger, machines_seen, enqueued, skipped, short_circuit, error) VALUES (?, 'schedule', 2, '[]', ?, NULL, NULL)",
      ).run(NOW, JSON.stringify(legacy));
      const store = new SqliteOutcomeStore(db, new SqliteCommits(db));
      assert.deepEqual((await store.last(1))[0]?.skipped, [
        { ...legacy[0], kind: "rack_limit", rack: null },
        { ...legacy[1], kind: "queue_limit", rack: null },
      ]);
      db.close();
    } finally {
      dir.remove();
    }
  });
});
