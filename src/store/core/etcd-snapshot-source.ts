import type { Etcd3 } from "etcd3";
import { SnapshotSourceError, type SnapshotSource } from "../copy/store-snapshot.js";
import { EtcdKvDriver } from "../kv/etcd-kv-driver.js";
import { howToEmptyEtcd, refuseUnfinishedCopy } from "./etcd-copy-marker.js";
import { EtcdKeys } from "./etcd-keys.js";
import { kvSnapshotItems, refuseUnknownLayout } from "./etcd-snapshot-export.js";
import type { KvStoreAccess } from "./kv-store-access.js";
import { SILENT_LOG } from "../../support/log.js";
import { DEFAULT_ETCD_MAX_REQUEST_BYTES, DEFAULT_ETCD_MAX_TXN_OPS } from "../../config/etcd-config.js";

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
export function etcdAccess(driver: EtcdKvDriver, keys: EtcdKeys, endpoints: readonly string[]): KvStoreAccess {
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
  const keys = new EtcdKeys(options.prefix);
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

/**
 * A store as the source of a copy (the driver is closed with it). Refused when replicas run on it (their election
 * keys are there) unless `whileRunning`; refused too when it holds an unfinished copy, a newer layout or a key
 * kintsugi does not write (checked again at the revision the copy reads).
 */
export async function openKvSnapshotSource(access: KvStoreAccess, whileRunning: boolean): Promise<SnapshotSource> {
  const { driver, keys, description } = access;
  try {
    await refuseUnfinishedCopy(access);
    const replicas = whileRunning ? 0 : await driver.count(`reading ${keys.allLeaders.start}`, keys.allLeaders);
    if (replicas > 0) {
      throw new SnapshotSourceError(
        `${description}: ${replicas} kintsugi replica(s) run on it (election keys under ${keys.allLeaders.start}); stop them before copying, ` +
          "so that nothing is written after the copy has read the store",
      );
    }
    await refuseUnknownLayout(driver, keys, description);
  } catch (err) {
    await driver.close();
    throw err;
  }
  return {
    description,
    items: () => kvSnapshotItems(driver, keys, description),
    close: () => driver.close(),
  };
}
