import type { StoredRecords } from "../../store/store-port.js";

/**
 * Stored records packed into one fresh buffer for a worker thread: the buffer is transferred, not copied, and it is
 * never one of Node's pooled buffers (transferring a pooled one would detach the pool under the rest of the process).
 */
export interface PackedRecords {
  readonly bytes: Uint8Array;
  /** Where each record's body ends in `bytes`. */
  readonly ends: readonly number[];
  /** The time each record's key says (NaN: none). */
  readonly times: readonly number[];
  /** Records the store could not take apart (counted, not packed). */
  readonly unreadable: number;
}

/** Bodies copied between two turns of the event loop by {@link packRecords}. */
export const PACK_BATCH = 1_000;

/**
 * Packs `stored` into one buffer of its own, PACK_BATCH bodies at a time with a turn of the event loop between: a
 * month of polls is tens of MB, and copying it at once held the event loop (and /health) for up to a second.
 */
export async function packRecords(stored: StoredRecords): Promise<PackedRecords> {
  const total = stored.bodies.reduce((n, b) => n + b.byteLength, 0);
  const bytes = new Uint8Array(new ArrayBuffer(total));
  const ends: number[] = [];
  let at = 0;
  for (const [i, body] of stored.bodies.entries()) {
    if (i > 0 && i % PACK_BATCH === 0) await new Promise((resolve) => setImmediate(resolve));
    bytes.set(body, at);
    at += body.byteLength;
    ends.push(at);
  }
  return { bytes, ends, times: [...stored.times], unreadable: stored.unreadable };
}

/**
 * Decodes packed records with `decode`, keeping those that decode and whose time is the one their key says; the
 * others are counted as unreadable.
 */
export function unpackRecords<R extends { readonly time: number }>(
  packed: PackedRecords,
  decode: (body: Uint8Array) => { readonly ok: true; readonly record: R } | { readonly ok: false },
): { readonly records: R[]; readonly unreadable: number } {
  const records: R[] = [];
  let unreadable = packed.unreadable;
  let start = 0;
  packed.ends.forEach((end, i) => {
    const decoded = decode(packed.bytes.subarray(start, end));
    start = end;
    const time = packed.times[i] ?? Number.NaN;
    if (decoded.ok && (Number.isNaN(time) || decoded.record.time === time)) records.push(decoded.record);
    else unreadable++;
  });
  return { records, unreadable };
}
