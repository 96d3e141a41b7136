import { quoteUntrusted } from "../../domain/shared/untrusted-text.js";
import type { KvStoreAccess } from "./kv-store-access.js";
import type { KvCompare } from "../kv/kv-driver.js";
import { STORE_SCHEMA_VERSION } from "./store-values.js";
import { NamedError } from "../store-errors.js";

/** The store holds a layout this kintsugi cannot use (written by a newer one, or not kintsugi's). */
export class StoreSchemaError extends NamedError {}

/**
 * Writes the schema key on a new store (one transaction, so replicas starting together agree); refuses a newer
 * version (older code writing there could corrupt what it does not understand) and moves an older one up, so that an
 * older kintsugi started afterwards refuses the store instead of missing the history records it cannot read.
 */
export async function ensureSchema({ driver, keys, place }: KvStoreAccess): Promise<number> {
  // Writes this version when the schema key's `target` revision is `revision` (0: absent); else reads what it holds.
  const write = (what: string, target: KvCompare["target"], revision: number) =>
    driver.txn(what, {
      compares: [{ key: keys.schema, target, revision }],
      puts: [{ key: keys.schema, value: JSON.stringify({ v: STORE_SCHEMA_VERSION }) }],
      deletes: [],
      reads: [keys.schema],
    });
  const response = await write(`checking the schema version of ${keys.prefix}`, "create", 0);
  if (response.succeeded) return STORE_SCHEMA_VERSION;
  const found = response.reads[0];
  const version = storedSchemaVersion(place, keys.schema, found?.value.toString("utf8") ?? "");
  if (version > STORE_SCHEMA_VERSION) {
    throw new StoreSchemaError(`${place} has schema version ${version}, newer than this kintsugi knows (${STORE_SCHEMA_VERSION}); upgrade kintsugi`);
  }
  if (version === STORE_SCHEMA_VERSION || found == null) return version;
  // Another replica may move it up at the same time: whichever commits first, the key then says this version.
  const upgraded = await write(`moving the schema version of ${keys.prefix} to ${STORE_SCHEMA_VERSION}`, "mod", found.modRevision);
  if (upgraded.succeeded) return STORE_SCHEMA_VERSION;
  const now = storedSchemaVersion(place, keys.schema, upgraded.reads[0]?.value.toString("utf8") ?? "");
  if (now !== STORE_SCHEMA_VERSION) throw new StoreSchemaError(`${place}: its schema version changed to ${now} while this kintsugi moved it up`);
  return now;
}

function storedSchemaVersion(place: string, schemaKey: string, raw: string): number {
  let version: unknown;
  try {
    version = (JSON.parse(raw) as { v?: unknown }).v;
  } catch {
    version = undefined;
  }
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    throw new StoreSchemaError(`${place} has a schema key (${schemaKey}) that is not kintsugi's: ${quoteUntrusted(raw)}`);
  }
  return version;
}
