import type { StoreBackend, StoreHealth } from "../store-port.js";

/**
 * The narrow interface the store core (written once) runs over: a key-value store with one global revision, as etcd
 * is and as Kine (k3s) serves etcd's model from one SQLite table. Two drivers implement it: etcd (the cluster next to
 * sabakan) and SQLite (one file, one table of keys). Everything kintsugi keeps, and every rule about it, lives in the
 * core; a driver only stores bytes under ordered keys, commits guarded batches atomically and announces them in order.
 *
 * Errors: a driver throws only the store's vocabulary (src/store/store-errors.ts): StoreUnavailableError when it cannot
 * be reached (the message names where and says whether a write may have happened), StoreBusyError when another process
 * holds its lock, StoreLimitError when it refuses a transaction as too large, and {@link KvCompactedError} when asked
 * to read or watch from a revision it no longer has. `what` (every call's first argument) names the call in errors.
 */
export interface KvDriver {
  readonly backend: StoreBackend;
  /** Where the store is, for messages: the etcd endpoints and prefix, or the SQLite file. */
  readonly description: string;
  /** The most one transaction may hold (SQLite: unbounded); the core splits writes to fit. */
  readonly limits: KvTxnLimits;
  /** How long a call (and a wait for the watch to deliver a revision) may take before the store is called unavailable. */
  readonly timeoutMs: number;
  /**
   * Whether only this process can write (SQLite: the file lock). Then writes need no leader guard, and the driver's
   * watch announces each commit before `txn` resolves.
   */
  readonly singleWriter: boolean;

  /** The key's current pair (or as of `revision`), and the store's revision the answer was read at. */
  get(what: string, key: string, options?: { readonly revision?: number }): Promise<{ readonly kv: KvPair | null; readonly revision: number }>;
  /**
   * The pairs in `range`, in byte order of their keys, at most `limit` of them (0 or absent: all), as of `revision`
   * (absent: the current one). `more` tells whether pairs past the last one returned are left in the range. With
   * `keysOnly` the values are empty buffers.
   */
  range(what: string, range: KeyRange, options?: KvRangeOptions): Promise<KvRangeResult>;
  /** How many keys `range` holds now. */
  count(what: string, range: KeyRange): Promise<number>;
  /**
   * Commits `txn` atomically if every compare holds (then `succeeded`, and `revision` is the new revision: one more
   * than before when anything was put or deleted), or else commits nothing and returns the current pairs of
   * `txn.reads` (null for absent keys) and the current revision. A transaction with no puts or deletes does not
   * advance the revision.
   */
  txn(what: string, txn: KvTxn): Promise<KvTxnResult>;
  /**
   * Watches `range` from `fromRevision` (inclusive): resolves once the watch is established (rejects with
   * StoreUnavailableError when it cannot be), then calls `sink.events` with every committed change in revision order,
   * the events of one revision together in one call. See {@link KvWatchSink} for outages.
   */
  watch(range: KeyRange, fromRevision: number, sink: KvWatchSink): Promise<KvWatch>;
  /** Forgets revisions older than `revision` (etcd's compaction); SQLite keeps none, so there it does nothing. */
  compact(what: string, revision: number): Promise<void>;
  /** Whether the store answers, as this process last saw it (GET /health). */
  health(): StoreHealth;
  /** Releases what the driver holds (the watch's stream; SQLite: the file and its lock). A client given by the caller stays open. */
  close(): Promise<void>;
}

/** A half-open key range [start, end), as etcd's range and delete-range take it. */
export interface KeyRange {
  readonly start: string;
  readonly end: string;
}

/** A stored key: its value and the revisions that created it and last wrote it (etcd's create and mod revisions). */
export interface KvPair {
  readonly key: string;
  readonly value: Buffer;
  readonly createRevision: number;
  readonly modRevision: number;
}

export interface KvRangeOptions {
  readonly limit?: number;
  readonly revision?: number;
  readonly keysOnly?: boolean;
}

export interface KvRangeResult {
  readonly kvs: readonly KvPair[];
  readonly more: boolean;
  /** The revision the range was read at. */
  readonly revision: number;
}

/**
 * A compare on one key: its mod revision (0: the key must be absent) or its create revision (0: absent), equal to
 * `revision`.
 */
export interface KvCompare {
  readonly key: string;
  readonly target: "mod" | "create";
  readonly revision: number;
}

/** One guarded batch: compares, then puts and range deletes on success, reads on failure. */
export interface KvTxn {
  readonly compares: readonly KvCompare[];
  readonly puts: ReadonlyArray<{ readonly key: string; readonly value: string | Buffer }>;
  readonly deletes: readonly KeyRange[];
  /** The keys whose current pairs a failed transaction returns, in this order. */
  readonly reads: readonly string[];
}

export interface KvTxnResult {
  readonly succeeded: boolean;
  readonly revision: number;
  /** On failure, the current pair of each of `txn.reads` (null: absent); empty on success. */
  readonly reads: ReadonlyArray<KvPair | null>;
}

/** One change to a key, as a watch delivers it; a delete carries an empty value and the revision of the delete. */
export interface KvEvent {
  readonly type: "put" | "delete";
  readonly key: string;
  readonly value: Buffer;
  readonly modRevision: number;
}

/**
 * Where a watch delivers. A dropped connection calls `disconnected` and the driver resumes by itself from
 * `resumeFrom()` (the revision after the last one the sink has applied), calling `connected` when it is back; a watch
 * that cannot resume (its revision compacted away) calls `lost` once and ends: the caller reads everything again.
 */
export interface KvWatchSink {
  events(revision: number, events: readonly KvEvent[]): void;
  resumeFrom(): number;
  disconnected(cause: string): void;
  connected(): void;
  lost(err: Error): void;
}

export interface KvWatch {
  cancel(): Promise<void>;
}

/** What one transaction may hold: etcd's `--max-txn-ops` (compares, puts+deletes, reads: each) and `--max-request-bytes`. */
export interface KvTxnLimits {
  readonly maxTxnOps: number;
  readonly maxRequestBytes: number;
}

/** A read or watch asked for a revision the driver no longer has (etcd compacted it; SQLite keeps only the current). */
export class KvCompactedError extends Error {
  override readonly name = "KvCompactedError";
}

/** The end of the range of every key that starts with `prefix` (its last byte plus one, as etcd clients do). */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

/** The range of every key that starts with `prefix`. */
export function prefixRange(prefix: string): KeyRange {
  return { start: prefix, end: prefixEnd(prefix) };
}

/** The range holding only `key`. */
export function keyRange(key: string): KeyRange {
  return { start: key, end: `${key}\0` };
}
