import { unfinishedCopy } from "./unfinished-copy.js";
import type { CopyMarker } from "./store-snapshot.js";
import type { KvStoreAccess } from "../core/kv-store-access.js";

/** Refuses a prefix that holds the marker of an unfinished copy (`kintsugi db copy` cut off or not verified). */
export async function refuseUnfinishedCopy({ driver, keys, place, howToEmpty }: KvStoreAccess): Promise<void> {
  const { kv } = await driver.get(`reading ${keys.copyMarker}`, keys.copyMarker);
  if (kv !== null) throw unfinishedCopy(place, parseMarker(kv.value.toString("utf8")), howToEmpty);
}

/** What a marker as stored (JSON) says of its copy; null when it is not an object. */
function parseMarker(text: string): Partial<CopyMarker> | null {
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== "object" || value === null) return null;
    const { source, startedAt } = value as Record<string, unknown>;
    return { ...(typeof source === "string" && { source }), ...(typeof startedAt === "string" && { startedAt }) };
  } catch {
    return null;
  }
}
