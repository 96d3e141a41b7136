import type { Etcd3 } from "etcd3";
import { DEFAULT_ETCD_TIMEOUT_MS } from "../../../config/etcd-config.js";
import type { KintsugiStore } from "../../store-port.js";
import { EtcdKvDriver, type EtcdKvDriverOptions } from "./etcd-kv-driver.js";
import { EtcdCompaction, type EtcdCompactionSettings } from "./etcd-compaction.js";
import { StoreKeys } from "../../core/store-keys.js";
import { checkedLimits } from "../../core/write-limits.js";
import type { KvTxnLimits } from "../kv-driver.js";
import { openStoreCore, type StoreCoreOptions } from "../../core/open-store-core.js";
import type { KvStoreAccess } from "../../core/kv-store-access.js";
import { SILENT_LOG, type Log } from "../../../support/log.js";

export interface EtcdStoreOptions extends Omit<StoreCoreOptions, "log"> {
  /** The caller's client (it owns it: `close()` leaves it open). */
  readonly client: Etcd3;
  /** Where the store's keys live, e.g. `/kintsugi/`; must end with "/". */
  readonly prefix: string;
  readonly log?: Log;
  /** The deadline of every etcd call (etcdutil's `timeout`). */
  readonly timeoutMs?: number;
  /** The endpoints the client talks to, named in errors. */
  readonly endpoints: readonly string[];
  /** etcd's `--max-txn-ops` and `--max-request-bytes` (default etcd's own); writes are split to fit. */
  readonly writeLimits?: Partial<KvTxnLimits>;
  readonly compaction?: EtcdCompactionSettings;
}

/** The store core over the etcd driver; StoreUnavailableError when etcd does not answer. */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<KintsugiStore> {
  const { client } = options;
  const log = options.log ?? SILENT_LOG;
  const timeoutMs = options.timeoutMs ?? DEFAULT_ETCD_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`the etcd timeout must be a positive number of milliseconds, got ${timeoutMs}`);
  const limits = checkedLimits(options.writeLimits);
  const access = etcdAccess({ client, prefix: options.prefix, endpoints: options.endpoints, timeoutMs, limits, log });
  const compaction = new EtcdCompaction({ retentionMs: 0, ...options.compaction, driver: access.driver, probeKey: access.keys.schema, log });
  const store = await openStoreCore(access, { ...options, log });
  await compaction.start();
  return {
    ...store,
    close: async () => {
      await compaction.stop();
      await store.close();
    },
  };
}

/** An etcd prefix as the core reaches it: the driver over the caller's client, and how operators are told of it. */
export function etcdAccess(options: Omit<EtcdKvDriverOptions, "probeKey"> & { readonly prefix: string }): KvStoreAccess & { readonly driver: EtcdKvDriver } {
  const keys = new StoreKeys(options.prefix);
  return {
    driver: new EtcdKvDriver({ ...options, probeKey: keys.schema }),
    keys,
    description: `etcd prefix ${keys.prefix} on ${options.endpoints.join(",")}`,
    place: `etcd prefix ${keys.prefix}`,
    howToEmpty: `etcdctl del --prefix ${keys.prefix}`,
  };
}
