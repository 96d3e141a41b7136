import { parseMarker, unfinishedCopy } from "./unfinished-copy.js";
import type { KvStoreAccess } from "../core/kv-store-access.js";

/** Refuses a prefix that holds the marker of an unfinished copy (`kintsugi db copy` cut off or not verified). */
export async function refuseUnfinishedCopy({ driver, keys, place, howToEmpty }: KvStoreAccess): Promise<void> {
  const { kv } = await driver.get(`reading ${keys.copyMarker}`, keys.copyMarker);
  if (kv !== null) throw unfinishedCopy(place, parseMarker(kv.value.toString("utf8")), howToEmpty);
}
