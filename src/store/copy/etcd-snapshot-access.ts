import type { Etcd3 } from "etcd3";
import type { SnapshotSource, SnapshotTarget } from "./store-snapshot.js";
import { EtcdKvDriver } from "../kv/etcd/etcd-kv-driver.js";
import { StoreKeys } from "../core/store-keys.js";
import type { KvStoreAccess } from "../core/kv-store-access.js";
import { openKvSnapshotSource } from "./snapshot-source.js";
import { openKvSnapshotTarget } from "./snapshot-target.js";
import { SILENT_LOG } from "../../support/log.js";
import { DEFAULT_ETCD_MAX_REQUEST_BYTES, DEFAULT_ETCD_MAX_TXN_OPS } from "../../config/etcd-config.js";

/** How an operator empties an etcd store before copying into it again. */
export function howToEmptyEtcd(prefix: string): string {
  return `etcdctl del --prefix ${prefix}`;
}

/** Where a copy reads or writes an etcd store: the caller's client (it owns it), the prefix, and how calls are named. */
export interface EtcdSnapshotOptions {
  readonly client: Etcd3;
  /** e.g. `/kintsugi/`; must end with "/". */
  readonly prefix: string;
  /** Named in the description and in errors. */
  readonly endpoints: readonly string[];
  /** The deadline of every etcd call, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * Read while replicas run (a backup): the snapshot is read at one revision, so it is consistent however they write
   * meanwhile. A copy that moves an installation leaves this unset: what they write after its read would be lost.
   */
  readonly whileRunning?: boolean;
}

/** How the core names an etcd prefix to operators. */
export function etcdAccess(driver: EtcdKvDriver, keys: StoreKeys, endpoints: readonly string[]): KvStoreAccess {
  return {
    driver,
    keys,
    description: `etcd prefix ${keys.prefix} on ${endpoints.join(",")}`,
    place: `etcd prefix ${keys.prefix}`,
    howToEmpty: howToEmptyEtcd(keys.prefix),
  };
}

/** The etcd store a copy reads or writes, through a driver of its own (deadlines, errors naming the endpoints). */
export function etcdSnapshotAccess(options: EtcdSnapshotOptions): KvStoreAccess {
  const keys = new StoreKeys(options.prefix);
  const driver = new EtcdKvDriver({
    client: options.client,
    probeKey: keys.schema,
    endpoints: options.endpoints,
    timeoutMs: options.timeoutMs,
    limits: { maxTxnOps: DEFAULT_ETCD_MAX_TXN_OPS, maxRequestBytes: DEFAULT_ETCD_MAX_REQUEST_BYTES },
    log: SILENT_LOG,
  });
  return etcdAccess(driver, keys, options.endpoints);
}

/**
 * An etcd store as the source of a copy. Refused while kintsugi replicas run on it (their election keys are there),
 * unless `whileRunning`: what they write after the copy read the store would be lost.
 */
export function openEtcdSnapshotSource(options: EtcdSnapshotOptions): Promise<SnapshotSource> {
  return openKvSnapshotSource(etcdSnapshotAccess(options), options.whileRunning === true);
}

/** An etcd prefix as the target of a copy (see {@link openKvSnapshotTarget}). */
export function openEtcdSnapshotTarget(options: EtcdSnapshotOptions): Promise<SnapshotTarget> {
  return Promise.resolve(openKvSnapshotTarget(etcdSnapshotAccess(options)));
}
