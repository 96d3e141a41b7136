import Database from "better-sqlite3";
import type { RepairEntry } from "../../src/domain/queue/repair-entry.js";
import { StoreKeys } from "../../src/store/core/store-keys.js";
import { SQLITE_KV_PREFIX } from "../../src/store/kv/sqlite/sqlite-kv-schema.js";
import type { Db } from "../../src/store/kv/sqlite/database.js";
import type { ClusterGenerationPort, KintsugiStore, RepairEntryPort } from "../../src/store/store-port.js";
import { NOW } from "./fixtures.js";

/** The ports of a running kintsugi's own store, for a test playing the runner's part. */
export interface SideStore {
  readonly entries: RepairEntryPort;
  readonly generations: ClusterGenerationPort;
  /** Rewrites entry `index` with `fields` as one `transition` (status, step, back-off: what the runner would write). */
  transition(index: number, fields: Partial<RepairEntry>, reason?: string): Promise<void>;
}

/**
 * Runs `work` with the ports of `target`'s own store (a running kintsugi's, or a runner harness's). Tests play the
 * runner's part this way. The writes are the store's like any other: its listeners hear them (subscriptions, the
 * pacing ledger, metrics), as they would the runner's.
 */
export async function withSideStore<T>(target: { readonly store: KintsugiStore }, work: (side: SideStore) => Promise<T> | T): Promise<T> {
  const { entries, generations } = target.store;
  const transition = async (index: number, fields: Partial<RepairEntry>, reason = "seed") => {
    const changes = await entries.change(
      index,
      (current) => (current === null ? null : [{ entry: { ...current, ...fields }, kind: "transition", reason }]),
      NOW,
      "test",
    );
    if (changes.length === 0) throw new Error(`repair entry ${index} is not in the queue`);
  };
  return await work({ entries, generations, transition });
}

/**
 * Opens a second, raw connection to the SQLite file at `path` (bypassing its lock, as another process would) and runs
 * `work` with it, then closes it. For fault injection: a trigger on the `kv` table makes the running store's writes
 * fail as a failing disk would. Writes through it are not seen by a running kintsugi's mirror.
 */
export function withRawDatabase<T>(path: string, work: (db: Db) => T): T {
  const db = new Database(path, { fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    return work(db);
  } finally {
    db.close();
  }
}

/** The keys of the SQLite store's `kv` table: etcd's layout under its prefix. */
export const SQLITE_KEYS = new StoreKeys(SQLITE_KV_PREFIX);
