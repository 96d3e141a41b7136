import type { Etcd3 } from "etcd3";
import { parseMarker, unfinishedCopy } from "../copy/unfinished-copy.js";
import type { EtcdAvailability } from "./etcd-availability.js";
import type { EtcdKeys } from "./etcd-keys.js";

/** How an operator empties an etcd store before copying into it again. */
export function howToEmptyEtcd(prefix: string): string {
  return `etcdctl del --prefix ${prefix}`;
}

/** Refuses a prefix that holds the marker of an unfinished copy (`kintsugi db copy` cut off or not verified). */
export async function refuseUnfinishedCopy(client: Etcd3, keys: EtcdKeys, availability: EtcdAvailability): Promise<void> {
  let marker: string | null;
  try {
    marker = await client.get(keys.copyMarker).options(availability.callOptions()).string();
    availability.answered();
  } catch (err) {
    throw availability.failed(`reading ${keys.copyMarker}`, err);
  }
  if (marker !== null) throw unfinishedCopy(`etcd prefix ${keys.prefix}`, parseMarker(marker), howToEmptyEtcd(keys.prefix));
}
