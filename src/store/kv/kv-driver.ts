import type { StoreBackend, StoreHealth } from "../store-port.js";
import { NamedError } from "../store-errors.js";

/**
 * What the store core runs over: a key-value store with one global revision, as etcd is and as Kine serves etcd's
 * model from one SQLite table. A driver only stores bytes under ordered keys, commits guarded batches atomically and
 * announces them in order; every rule lives in the core. A driver throws only the store's error vocabulary
 * (store-errors.ts), and {@link KvCompactedError} for a revision it no longer has; `what` names the call in errors.
 */
export interface KvDriver {
  readonly backend: StoreBackend;
  /** The most one transaction may hold (SQLite: unbounded); the core splits writes to fit. */
  readonly limits: KvTxnLimits;
  /** How long a call, or a wait for the watch to deliver a revision, may take. */
  readonly timeoutMs: number;
  /** Only this process writes (SQLite's file lock): no leader guard, and each commit is announced before `txn` resolves. */
  readonly singleWriter: boolean;

  get(what: string, key: string, options?: { readonly revision?: number }): Promise<{ readonly kv: KvPair | null; readonly revision: number }>;
  /** The pairs of `range` in key byte order, at most `limit` (0: all); `more` tells whether pairs are left. */
  range(what: string, range: KeyRange, options?: KvRangeOptions): Promise<KvRangeResult>;
  count(what: string, range: KeyRange): Promise<number>;
  /**
   * Commits `txn` if every compare holds (a new revision when anything was put or deleted), or else commits nothing
   * and returns the current pairs of `txn.reads`.
   */
  txn(what: string, txn: KvTxn): Promise<KvTxnResult>;
  /** Resolves once the watch is established, then delivers every commit from `fromRevision` on, a revision per call. */
  watch(range: KeyRange, fromRevision: number, sink: KvWatchSink): Promise<KvWatch>;
  health(): StoreHealth;
  /** Releases what the driver holds; a client given by the caller stays open. */
  close(): Promise<void>;
}

/** A half-open key range [start, end), as etcd's range and delete-range take it. */
export interface KeyRange {
  readonly start: string;
  readonly end: string;
}

/** A stored key with the revisions that created it and last wrote it. */
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
  readonly revision: number;
}

/** A compare on one key: its mod or create revision equals `revision` (0: the key is absent). */
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
  /** On failure, the current pair of each of `txn.reads` (null: absent). */
  readonly reads: ReadonlyArray<KvPair | null>;
}

/** One change to a key, as a watch delivers it; a delete carries an empty value. */
export interface KvEvent {
  readonly type: "put" | "delete";
  readonly key: string;
  readonly value: Buffer;
  readonly modRevision: number;
}

/**
 * Where a watch delivers. A disconnected watch resumes by itself from `resumeFrom()`; one that cannot resume (its
 * revision compacted away) calls `lost` once and ends: the caller reads everything again.
 */
export interface KvWatchSink {
  events(revision: number, events: readonly KvEvent[]): void;
  resumeFrom(): number;
  lost(err: Error): void;
}

export interface KvWatch {
  cancel(): Promise<void>;
}

/** What one transaction may hold: etcd's `--max-txn-ops` (per branch, as v3rpc's checkTxnRequest counts) and `--max-request-bytes`. */
export interface KvTxnLimits {
  readonly maxTxnOps: number;
  readonly maxRequestBytes: number;
}

/** A read or watch asked for a revision the driver no longer has. */
export class KvCompactedError extends NamedError {}

/** Every key that starts with `prefix`: up to its last byte plus one, as etcd clients do. */
export function prefixRange(prefix: string): KeyRange {
  return { start: prefix, end: prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1) };
}

export function keyRange(key: string): KeyRange {
  return { start: key, end: `${key}\0` };
}

/**
 * The pages of `range`, `options.limit` pairs at a time (a gRPC answer is limited to 4 MiB). `pin`: every page at the
 * revision of the first when `options` names none, so the pages are consistent however many they are.
 */
export async function* rangePages(driver: KvDriver, what: string, range: KeyRange, options: KvRangeOptions, pin = false): AsyncGenerator<KvRangeResult> {
  let revision = options.revision;
  for (let start = range.start; ;) {
    const page = await driver.range(what, { start, end: range.end }, { ...options, revision });
    yield page;
    if (pin) revision ??= page.revision;
    const last = page.kvs.at(-1);
    if (!page.more || last === undefined) return;
    start = `${last.key}\0`;
  }
}
