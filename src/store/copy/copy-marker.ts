import type { KvStoreAccess } from "../core/kv-store-access.js";
import { NamedError } from "../store-errors.js";

/** What a copy leaves in the target while it writes (a store holding it refuses to open); fresh `copyId` per copy. */
export interface CopyMarker {
  readonly copyId: string;
  readonly source: string;
  readonly startedAt: string;
}

/** A store holds the marker of a copy that did not finish: what it holds may be incomplete, so it is not opened. */
export class UnfinishedCopyError extends NamedError {}

/** The refusal for a store holding a copy marker (`marker` null: it cannot be read). */
export function unfinishedCopy(store: string, marker: Partial<CopyMarker> | null, emptyIt: string): UnfinishedCopyError {
  const from = marker?.source === undefined ? "" : ` from ${marker.source}`;
  const started = marker?.startedAt === undefined ? "" : ` started at ${marker.startedAt}`;
  return new UnfinishedCopyError(
    `${store} holds an unfinished copy${from}${started}: what it holds may be incomplete, so it is not opened. ` +
      `Empty it (${emptyIt}) and run kintsugi db copy again into the empty store`,
  );
}

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
