import { createRepairEntry, type RepairEntry } from "../../src/domain/queue/repair-entry.js";
import { openSqliteStore } from "../../src/store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../../src/store/store-port.js";

const MIN = 60_000;

/** One repair to record: its machine, when it was created, how long it drained, and how it ended. */
export interface RepairToRecord {
  readonly address: string;
  readonly machineType?: string;
  readonly operation?: string;
  readonly createdAt: number;
  readonly drainMin: number;
  readonly watchMin: number;
  readonly status: RepairEntry["status"];
}

/**
 * Records `repair` in `store` through the store port, as the runner would: created, draining, watching for
 * `watchMin`, then its final status; returns its index. A known history for analytics tests.
 */
export async function recordRepair(store: KintsugiStore, repair: RepairToRecord): Promise<number> {
  const { address, machineType = "qemu", operation = "unreachable", createdAt, drainMin, watchMin, status } = repair;
  const { entry } = await store.entries.add(
    createRepairEntry({ address, machineType, operation, serial: null, source: "sabakan" }, createdAt),
    "test",
    createdAt,
    "sabakan",
  );
  let time = createdAt;
  const move = (over: Partial<RepairEntry>, reason: string) =>
    store.entries.change(entry.index, (e) => e && [{ entry: { ...e, ...over, lastTransitionTime: time }, kind: "transition", reason }], time, "kintsugi");
  await move({ status: "processing", stepStatus: "draining" }, "drain");
  time += drainMin * MIN;
  await move({ status: "processing", stepStatus: "watching" }, "watch");
  time += watchMin * MIN;
  await move({ status }, status);
  return entry.index;
}

/** Writes `repairs` into the SQLite database at `path` (created when missing) and closes it. */
export async function recordRepairsIn(path: string, repairs: readonly RepairToRecord[]): Promise<void> {
  const store = await openSqliteStore({ path });
  try {
    for (const repair of repairs) await recordRepair(store, repair);
  } finally {
    await store.close();
  }
}
