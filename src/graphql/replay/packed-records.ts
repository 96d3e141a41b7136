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

/** Packs `stored` into one buffer of its own. */
export function packRecords(stored: StoredRecords): PackedRecords {
  const total = stored.bodies.reduce((n, b) => n + b.byteLength, 0);
  const bytes = new Uint8Array(new ArrayBuffer(total));
  const ends: number[] = [];
  let at = 0;
  for (const body of stored.bodies) {
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
export function unpackRecords<R extends { readonly time: number }>(packed: PackedRecords, decode: (body: Uint8Array) => { readonly ok: true; readonly record: R } | { readonly ok: false }): { readonly records: R[]; readonly unreadable: number } {
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
