import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createRepairEntry, type RepairEntry, type UnindexedRepairEntry } from "../../../src/domain/queue/repair-entry.js";
import { DatabaseOpenError } from "../../../src/store/store-errors.js";
import { openSqliteStore } from "../../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";
import { tempDir } from "../../support/temp-dir.js";

const unindexed = (address: string): UnindexedRepairEntry =>
  createRepairEntry({ address, machineType: "qemu", operation: "unreachable", serial: null, source: "test" }, NOW);

describe("the SQLite store", () => {
  let dir: ReturnType<typeof tempDir>;
  let path: string;
  let store: KintsugiStore;
  let entry: RepairEntry;

  beforeEach(async () => {
    dir = tempDir();
    path = join(dir.path, "kintsugi.db");
    store = await openSqliteStore({ path });
    entry = (await store.entries.add(unindexed("10.0.0.1"), "seeded", NOW, "test")).entry;
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  it("needs no guard: its file lock already makes it the only writer, so a guard naming no leader refuses nothing", async () => {
    const guarded = store.guarded({ current: () => null }, "r1");
    await guarded.entries.add(unindexed("10.0.0.2"), "seeded", NOW, "test");
    assert.deepEqual(
      store.entries.list().map((e) => e.address),
      ["10.0.0.1", "10.0.0.2"],
    );
  });

  it("reports its backend with the database's health", () => {
    assert.equal(store.backend, "sqlite");
    assert.deepEqual(store.health(), { backend: "sqlite", healthy: true });
  });

  it("holds the database's lock until closed", async () => {
    await assert.rejects(
      () => openSqliteStore({ path }),
      (err: Error) => err instanceof DatabaseOpenError && /is in use by another kintsugi process/.test(err.message),
    );
    await store.close();
    store = await openSqliteStore({ path });
    assert.deepEqual(store.entries.list(), [entry]);
  });
});
