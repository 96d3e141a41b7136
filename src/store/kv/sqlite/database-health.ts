import type { Db } from "./database.js";
import { databaseFailureOf, describeDatabaseFailure, type DatabaseFailure } from "./database-failure.js";

/** Whether kintsugi can write its database, and why not. */
export type HealthVerdict = { readonly healthy: true } | { readonly healthy: false; readonly reason: string };

export interface DatabaseHealthOptions {
  /** A monotonic clock (default `performance.now`). */
  readonly clock?: () => number;
}

/** At most one heartbeat write per this many ms, however often /health is asked. */
const HEARTBEAT_INTERVAL_MS = 1000;

/**
 * Whether the database can be written (GET /health), from two sources:
 * - a heartbeat, a write of the header's `user_version`, at most once per interval (clients cannot make kintsugi
 *   fsync at will); it touches no table and proves the file, the disk and the journal take a commit;
 * - the last failed transaction: a read-only file, a full disk, an I/O error or corruption is remembered until a
 *   later transaction writes. A heartbeat that succeeds clears a read-only file or an I/O error; not a full disk (a
 *   header write needs no new space) nor corruption (damaged pages elsewhere do not stop it).
 * Another process's write lock is no verdict. No `PRAGMA quick_check`: it reads the whole file synchronously,
 * stalling the API for as long as the database is large.
 */
export class DatabaseHealth {
  private readonly clock: () => number;
  private lastBeatAt = -Infinity;
  private beats: number;
  private beatFailure: DatabaseFailure | null = null;
  private storeFailure: DatabaseFailure | null = null;

  constructor(
    private readonly db: Db,
    options: DatabaseHealthOptions = {},
  ) {
    this.clock = options.clock ?? (() => performance.now());
    this.beats = db.pragma("user_version", { simple: true }) as number;
  }

  check(): HealthVerdict {
    const now = this.clock();
    if (now - this.lastBeatAt >= HEARTBEAT_INTERVAL_MS) {
      this.lastBeatAt = now;
      this.beat();
    }
    const failure = this.beatFailure ?? this.storeFailure;
    return failure === null ? { healthy: true } : { healthy: false, reason: describeDatabaseFailure(this.db.name, failure) };
  }

  private beat(): void {
    const next = (this.beats % 0x7fffffff) + 1;
    try {
      this.db.pragma(`user_version = ${next}`);
    } catch (err) {
      const failure = databaseFailureOf(err);
      if (failure === null) throw err;
      if (failure.kind !== "busy") this.beatFailure = failure;
      return;
    }
    this.beats = next;
    this.beatFailure = null;
    if (this.storeFailure?.kind === "read-only" || this.storeFailure?.kind === "io") this.storeFailure = null;
  }

  /** `commit` (an outermost transaction: the store writes only in those) reporting its outcome here. */
  watched<A extends unknown[], R>(commit: (...args: A) => R): (...args: A) => R {
    const totalChanges = this.db.prepare("SELECT total_changes()").pluck();
    return (...args) => {
      const before = totalChanges.get();
      try {
        const result = commit(...args);
        if (totalChanges.get() !== before) this.storeFailure = null;
        return result;
      } catch (err) {
        const failure = databaseFailureOf(err);
        if (failure !== null && failure.kind !== "busy") this.storeFailure = failure;
        throw err;
      }
    };
  }
}
