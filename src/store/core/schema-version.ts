import { quoteUntrusted } from "../../domain/shared/untrusted-text.js";
import type { KvStoreAccess } from "./kv-store-access.js";
import { STORE_SCHEMA_VERSION } from "./store-values.js";

/** The store holds a layout this kintsugi cannot use (written by a newer one, or not kintsugi's). */
export class StoreSchemaError extends Error {
  override readonly name = "StoreSchemaError";
}

/**
 * Makes sure the store holds a layout this kintsugi knows: on a new store, writes the schema key (one transaction,
 * so two replicas starting together agree); on a used one, refuses a version newer than {@link STORE_SCHEMA_VERSION},
 * since older code writing there could corrupt what it does not understand. Its errors name the store's place (the etcd
 * prefix or the SQLite file).
 */
export async function ensureSchema({ driver, keys, place }: KvStoreAccess): Promise<number> {
  const response = await driver.txn(`checking the schema version of ${keys.prefix}`, {
    compares: [{ key: keys.schema, target: "create", revision: 0 }],
    puts: [{ key: keys.schema, value: JSON.stringify({ v: STORE_SCHEMA_VERSION }) }],
    deletes: [],
    reads: [keys.schema],
  });
  if (response.succeeded) return STORE_SCHEMA_VERSION;
  const raw = response.reads[0]?.value.toString("utf8") ?? "";
  let version: unknown;
  try {
    version = (JSON.parse(raw) as { v?: unknown }).v;
  } catch {
    version = undefined;
  }
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    throw new StoreSchemaError(`${place} has a schema key (${keys.schema}) that is not kintsugi's: ${quoteUntrusted(raw)}`);
  }
  if (version > STORE_SCHEMA_VERSION) {
    throw new StoreSchemaError(`${place} has schema version ${version}, newer than this kintsugi knows (${STORE_SCHEMA_VERSION}); upgrade kintsugi`);
  }
  return version;
}
