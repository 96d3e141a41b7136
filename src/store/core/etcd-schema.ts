import { quoteUntrusted } from "../../domain/shared/untrusted-text.js";
import type { KvDriver } from "../kv/kv-driver.js";
import type { EtcdKeys } from "./etcd-keys.js";
import { ETCD_SCHEMA_VERSION } from "./etcd-values.js";

/** The prefix holds a layout this kintsugi cannot use (written by a newer one, or not kintsugi's). */
export class EtcdSchemaError extends Error {
  override readonly name = "EtcdSchemaError";
}

/**
 * Makes sure the prefix holds a layout this kintsugi knows: on a new prefix, writes the schema key (one transaction,
 * so two replicas starting together agree); on a used one, refuses a version newer than {@link ETCD_SCHEMA_VERSION},
 * since older code writing there could corrupt what it does not understand.
 */
export async function ensureSchema(driver: KvDriver, keys: EtcdKeys): Promise<number> {
  const response = await driver.txn(`checking the schema version of ${keys.prefix}`, {
    compares: [{ key: keys.schema, target: "create", revision: 0 }],
    puts: [{ key: keys.schema, value: JSON.stringify({ v: ETCD_SCHEMA_VERSION }) }],
    deletes: [],
    reads: [keys.schema],
  });
  if (response.succeeded) return ETCD_SCHEMA_VERSION;
  const raw = response.reads[0]?.value.toString("utf8") ?? "";
  let version: unknown;
  try {
    version = (JSON.parse(raw) as { v?: unknown }).v;
  } catch {
    version = undefined;
  }
  if (typeof version !== "number" || !Number.isSafeInteger(version) || version < 1) {
    throw new EtcdSchemaError(`etcd prefix ${keys.prefix} has a schema key (${keys.schema}) that is not kintsugi's: ${quoteUntrusted(raw)}`);
  }
  if (version > ETCD_SCHEMA_VERSION) {
    throw new EtcdSchemaError(
      `etcd prefix ${keys.prefix} has schema version ${version}, newer than this kintsugi knows (${ETCD_SCHEMA_VERSION}); upgrade kintsugi`,
    );
  }
  return version;
}
