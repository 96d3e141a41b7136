import type { KvDriver } from "../kv/kv-driver.js";
import type { StoreKeys } from "./store-keys.js";

/** One store as the core reaches it, and how it is named to operators: an etcd prefix or a SQLite file. */
export interface KvStoreAccess {
  readonly driver: KvDriver;
  readonly keys: StoreKeys;
  /** As a copy names it: `etcd prefix /kintsugi/ on http://...`, `sqlite:/var/lib/kintsugi/kintsugi.db`. */
  readonly description: string;
  /** In a sentence's words: `etcd prefix /kintsugi/`, `SQLite database /var/lib/...`. */
  readonly place: string;
  /** How an operator empties it before copying into it again. */
  readonly howToEmpty: string;
}
