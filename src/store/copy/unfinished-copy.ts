import type { CopyMarker } from "./store-snapshot.js";

/** A store holds the marker of a copy that did not finish: what it holds may be incomplete, so it is not opened. */
export class UnfinishedCopyError extends Error {
  override readonly name = "UnfinishedCopyError";
}

/** The refusal for a store holding a copy marker (`marker` null: it cannot be read). */
export function unfinishedCopy(store: string, marker: Partial<CopyMarker> | null, emptyIt: string): UnfinishedCopyError {
  const from = marker?.source === undefined ? "" : ` from ${marker.source}`;
  const started = marker?.startedAt === undefined ? "" : ` started at ${marker.startedAt}`;
  return new UnfinishedCopyError(
    `${store} holds an unfinished copy${from}${started}: what it holds may be incomplete, so it is not opened. ` +
      `Empty it (${emptyIt}) and run kintsugi db copy again into the empty store`,
  );
}
