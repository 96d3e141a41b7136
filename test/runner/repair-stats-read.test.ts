import assert from "node:assert/strict";
import { join } from "node:path";
import { afterEach, beforeEach, describe, it } from "node:test";
import { createRepairEntry, type RepairEntry } from "../../src/domain/repair-entry.js";
import { readRecordedRepairs } from "../../src/runner/repair-stats-read.js";
import { openSqliteStore } from "../../src/store/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../src/store/store-port.js";
import { NOW } from "../support/fixtures.js";
import { tempDir } from "../support/temp-dir.js";

const MIN = 60_000;

describe("readRecordedRepairs (real SQLite)", () => {
  let dir: ReturnType<typeof tempDir>;
  let store: KintsugiStore;
  beforeEach(() => {
    dir = tempDir();
    store = openSqliteStore({ path: join(dir.path, "k.db") });
  });
  afterEach(async () => {
    await store.close();
    dir.remove();
  });

  /** Adds an entry, drains it for a minute, and finishes it `finishMin` minutes after NOW. */
  async function repair(address: string, finishMin: number, status: RepairEntry["status"] = "succeeded"): Promise<number> {
    const { entry } = await store.entries.add(createRepairEntry({ address, machineType: "qemu", operation: "unhealthy", serial: null, source: "sabakan" }, NOW), "test", NOW, "sabakan");
    const at = (min: number, over: Partial<RepairEntry>, reason: string) =>
      store.entries.change(entry.index, (e) => e && [{ entry: { ...e, ...over, lastTransitionTime: NOW + min * MIN }, kind: "transition", reason }], NOW + min * MIN, "kintsugi");
    await at(finishMin - 2, { status: "processing", stepStatus: "draining" }, "drain");
    await at(finishMin - 1, { status: "processing", stepStatus: "watching" }, "watch");
    await at(finishMin, { status }, status);
    return entry.index;
  }

  it("the repairs finished in [since, until), each with its whole history", async () => {
    await repair("10.0.0.1", 10);
    await repair("10.0.0.2", 20, "failed");
    await repair("10.0.0.3", 30);
    const read = await readRecordedRepairs(store.entries, store.finished, NOW + 20 * MIN, NOW + 30 * MIN);
    assert.deepEqual(read.map((r) => [r.repair.address, r.repair.status, r.history?.map((p) => p.stepStatus)]), [
      ["10.0.0.2", "failed", ["waiting", "draining", "watching", "watching"]],
    ], "since is inclusive, until exclusive");
  });

  it("past the read's bound, the repairs are still counted, without a history", async () => {
    for (const [i, address] of ["10.0.0.1", "10.0.0.2", "10.0.0.3"].entries()) await repair(address, 10 + i);
    const read = await readRecordedRepairs(store.entries, store.finished, NOW, NOW + 60 * MIN, 9);
    assert.deepEqual(read.map((r) => [r.repair.address, r.history?.length ?? null]).sort(), [["10.0.0.1", 4], ["10.0.0.2", 4], ["10.0.0.3", null]]);
  });

  it("nothing finished in the range: nothing read", async () => {
    await repair("10.0.0.1", 10);
    assert.deepEqual(await readRecordedRepairs(store.entries, store.finished, NOW + 11 * MIN, NOW + 60 * MIN), []);
  });
});
