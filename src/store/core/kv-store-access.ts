import type { KvDriver } from "../kv/kv-driver.js";
import type { StoreKeys } from "./store-keys.js";

/**
 * One kintsugi store as the core reaches it: the driver, the key layout, and how the store is named to operators.
 * The same core serves an etcd prefix and a SQLite file; only these words differ.
 */
export interface KvStoreAccess {
  readonly driver: KvDriver;
  readonly keys: StoreKeys;
  /** The store as a copy names it: `etcd prefix /kintsugi/ on http://...` or `sqlite:/var/lib/kintsugi/kintsugi.db`. */
  readonly description: string;
  /** What the store is, in a sentence's words: `etcd prefix /kintsugi/` or `SQLite database /var/lib/...`. */
  readonly place: string;
  /** How an operator empties it before copying into it again (a command to run). */
  readonly howToEmpty: string;
}
