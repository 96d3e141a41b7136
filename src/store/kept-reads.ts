import type { Db } from "./database.js";

/** Freezes a value and everything reachable from it (values parsed from JSON: plain objects and arrays). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/**
 * Reads kept between writes, for the values every pass and every poll asks for. Everything kept is dropped as soon
 * as the database may have changed: a write through this connection (by any store: SQLite's `total_changes()`
 * moves) or a commit by another connection (`PRAGMA data_version` moves); checking both is one statement. Inside a
 * transaction nothing is kept or served: the transaction may still roll back, and it must see its own writes. Kept
 * values are deep-frozen, as callers share them.
 */
export class KeptReads {
  private readonly changes;
  private version = "";
  private readonly kept = new Map<string, unknown>();

  constructor(private readonly db: Db) {
    this.changes = db.prepare("SELECT total_changes() || ':' || data_version FROM pragma_data_version").pluck();
  }

  /** The value kept under `key`, or `read()`'s, kept from now on. */
  get<T>(key: string, read: () => T): T {
    if (this.db.inTransaction) return read();
    const version = this.changes.get() as string;
    if (version !== this.version) {
      this.kept.clear();
      this.version = version;
    }
    if (this.kept.has(key)) return this.kept.get(key) as T;
    const value = deepFreeze(read());
    this.kept.set(key, value);
    return value;
  }
}
