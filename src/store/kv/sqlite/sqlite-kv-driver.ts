import type { StoreHealth } from "../../store-port.js";
import { StoreUnavailableError } from "../../store-errors.js";
import type { Db } from "./database.js";
import { asStoreError } from "./database-failure.js";
import { DatabaseHealth, type DatabaseHealthOptions } from "./database-health.js";
import {
  KvCompactedError,
  type KeyRange,
  type KvDriver,
  type KvEvent,
  type KvPair,
  type KvRangeOptions,
  type KvRangeResult,
  type KvTxn,
  type KvTxnLimits,
  type KvTxnResult,
  type KvWatch,
  type KvWatchSink,
} from "../kv-driver.js";
import { SqliteKvStatements } from "./sqlite-kv-statements.js";
import { SqliteKvWatches } from "./sqlite-kv-watches.js";

interface SqliteKvDriverOptions {
  /** The database file, for messages. */
  readonly description: string;
  /** Called once by `close()`: closes the database and releases its lock, when the driver owns them. */
  readonly close?: () => void;
  readonly health?: DatabaseHealthOptions;
}

const EMPTY = Buffer.alloc(0);
/** Free pages (4 KiB each) the file keeps before it gives them back: a megabyte, so most deletes cost no extra write. */
export const GIVE_BACK_PAGES = 256;
/** PRAGMA auto_vacuum's answer for incremental. */
const INCREMENTAL = 2;
const UNBOUNDED: KvTxnLimits = { maxTxnOps: Infinity, maxRequestBytes: Infinity };

type Committed = KvTxnResult & { readonly events: readonly KvEvent[] };

/**
 * The driver over one SQLite file in Kine's model: etcd's keys in one table and one revision counter. The file lock
 * makes this process the only writer, so every call is a synchronous statement, and a write's events reach the
 * watches before its promise resolves. Only the current revision is kept. SQLite's failures reach callers as
 * StoreBusyError or StoreUnavailableError, whose messages name no path or SQL.
 */
export class SqliteKvDriver implements KvDriver {
  readonly backend = "sqlite" as const;
  readonly limits = UNBOUNDED;
  /** How long the core waits on the watch (SQLite calls themselves are synchronous). */
  readonly timeoutMs = 2000;
  readonly singleWriter = true;
  private readonly statements: SqliteKvStatements;
  private readonly dbHealth: DatabaseHealth;
  private readonly watches: SqliteKvWatches;
  private readonly commit: (txn: KvTxn) => Committed;
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly options: SqliteKvDriverOptions,
  ) {
    this.statements = new SqliteKvStatements(db);
    this.watches = new SqliteKvWatches();
    this.dbHealth = new DatabaseHealth(db, options.health);
    // IMMEDIATE: a write lock held by another process fails the BEGIN, before anything is read or written.
    this.commit = this.dbHealth.watched(db.transaction((txn: KvTxn) => this.apply(txn)).immediate);
  }

  async get(what: string, key: string, options: { readonly revision?: number } = {}): Promise<{ readonly kv: KvPair | null; readonly revision: number }> {
    return this.run(what, () => ({ revision: this.currentAt(what, options.revision), kv: this.statements.get(key) }));
  }

  async range(what: string, range: KeyRange, options: KvRangeOptions = {}): Promise<KvRangeResult> {
    const limit = options.limit ?? 0;
    if (!Number.isSafeInteger(limit) || limit < 0) throw new Error(`${what}: a range limit must be a whole number >= 0, not ${limit}`);
    return this.run(what, () => {
      const revision = this.currentAt(what, options.revision);
      // One row past the limit tells whether more are left.
      const kvs = this.statements.range(range, limit === 0 ? -1 : limit + 1, options.keysOnly === true);
      const more = limit > 0 && kvs.length > limit;
      return { kvs: more ? kvs.slice(0, limit) : kvs, more, revision };
    });
  }

  async count(what: string, range: KeyRange): Promise<number> {
    return this.run(what, () => this.statements.count(range));
  }

  async txn(what: string, txn: KvTxn): Promise<KvTxnResult> {
    refuseOverlaps(what, txn);
    const { events, ...result } = this.run(what, () => this.commit(txn));
    // After COMMIT, before the promise resolves: the core's mirror has the write when the write resolves.
    this.watches.announce(result.revision, events);
    if (events.some((e) => e.type === "delete")) this.run(`${what}: giving freed pages back`, () => this.giveBack());
    return result;
  }

  async watch(range: KeyRange, fromRevision: number, sink: KvWatchSink): Promise<KvWatch> {
    const current = this.run("watch", () => this.statements.revision());
    if (!(fromRevision > current)) {
      throw new KvCompactedError(
        `watch: revision ${fromRevision} is gone: the SQLite store keeps no past revisions (it is at ${current}; watch from ${current + 1})`,
      );
    }
    return this.watches.add(range, fromRevision, sink);
  }

  health(): StoreHealth {
    if (this.closed) return { backend: "sqlite", healthy: false, reason: `the SQLite store ${this.options.description} is closed` };
    return { backend: "sqlite", ...this.dbHealth.check() };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.watches.clear();
    this.options.close?.();
  }

  /**
   * Gives free pages back once there are {@link GIVE_BACK_PAGES} (on a file with incremental auto_vacuum), so the file
   * shrinks as what it keeps is pruned; in a write of its own after the commit, so that no transaction waits for it.
   */
  private giveBack(): void {
    if ((this.db.pragma("freelist_count", { simple: true }) as number) < GIVE_BACK_PAGES) return;
    if (this.db.pragma("auto_vacuum", { simple: true }) !== INCREMENTAL) return;
    this.db.pragma("incremental_vacuum");
  }

  private apply(txn: KvTxn): Committed {
    const current = this.statements.revision();
    if (!txn.compares.every((c) => this.compareHolds(c.key, c.target, c.revision))) {
      return { succeeded: false, revision: current, reads: txn.reads.map((key) => this.statements.get(key)), events: [] };
    }
    const next = current + 1;
    const events: KvEvent[] = [];
    for (const put of txn.puts) {
      const value = typeof put.value === "string" ? Buffer.from(put.value, "utf8") : put.value;
      this.statements.put(put.key, value, next);
      events.push({ type: "put", key: put.key, value, modRevision: next });
    }
    for (const range of txn.deletes) {
      for (const key of this.statements.delete(range)) events.push({ type: "delete", key, value: EMPTY, modRevision: next });
    }
    // As etcd's store: only a transaction that changed a key advances the revision; deleting nothing changes nothing.
    if (events.length === 0) return { succeeded: true, revision: current, reads: [], events };
    this.statements.setRevision(next);
    return { succeeded: true, revision: next, reads: [], events };
  }

  private compareHolds(key: string, target: "mod" | "create", revision: number): boolean {
    const kv = this.statements.get(key);
    if (kv === null) return revision === 0;
    return (target === "mod" ? kv.modRevision : kv.createRevision) === revision;
  }

  private currentAt(what: string, asked: number | undefined): number {
    const current = this.statements.revision();
    if (asked === undefined || asked === current) return current;
    const why = asked > current ? "is a future revision" : "is gone: the SQLite store keeps no past revisions";
    throw new KvCompactedError(`${what}: revision ${asked} ${why} (it is at ${current})`);
  }

  private run<T>(what: string, call: () => T): T {
    if (this.closed) throw new StoreUnavailableError(`${what}: the SQLite store is closed`);
    try {
      return call();
    } catch (err) {
      throw asStoreError(what, err);
    }
  }
}

/**
 * Refuses a transaction that etcd refuses as "duplicate key given in txn request" (checkIntervals in etcd's
 * server/etcdserver/api/v3rpc/key.go): one key put twice, or a put inside one of its delete ranges. The core never
 * sends one; this keeps the two drivers from disagreeing if it did.
 */
function refuseOverlaps(what: string, txn: KvTxn): void {
  const seen = new Set<string>();
  const deletes = txn.deletes.map((r) => ({ start: Buffer.from(r.start), end: Buffer.from(r.end) }));
  for (const { key } of txn.puts) {
    const bytes = Buffer.from(key);
    const deleted = deletes.some((r) => Buffer.compare(bytes, r.start) >= 0 && Buffer.compare(bytes, r.end) < 0);
    if (seen.has(key) || deleted) throw new Error(`${what}: a transaction puts key ${JSON.stringify(key)} twice, or puts and deletes it (etcd refuses it too)`);
    seen.add(key);
  }
}
