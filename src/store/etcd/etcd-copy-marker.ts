import { parseMarker, unfinishedCopy } from "../copy/unfinished-copy.js";
import type { KvDriver } from "../kv/kv-driver.js";
import type { EtcdKeys } from "./etcd-keys.js";

/** How an operator empties an etcd store before copying into it again. */
export function howToEmptyEtcd(prefix: string): string {
  return `etcdctl del --prefix ${prefix}`;
}

/** Refuses a prefix that holds the marker of an unfinished copy (`kintsugi db copy` cut off or not verified). */
export async function refuseUnfinishedCopy(driver: KvDriver, keys: EtcdKeys): Promise<void> {
  const { kv } = await driver.get(`reading ${keys.copyMarker}`, keys.copyMarker);
  if (kv !== null) throw unfinishedCopy(`etcd prefix ${keys.prefix}`, parseMarker(kv.value.toString("utf8")), howToEmptyEtcd(keys.prefix));
}
