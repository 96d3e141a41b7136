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
 * One read kept between writes, for what every pass and every poll asks for (the repair queue). It is read again as
 * soon as the database may have changed: a write through this connection (by any store: SQLite's `total_changes()`
 * moves) or a commit by another connection (`PRAGMA data_version` moves); checking both is one statement. Inside a
 * transaction it is neither kept nor served: the transaction may still roll back, and it must see its own writes.
 * The kept value is deep-frozen, as callers share it.
 */
export class KeptRead<T> {
  private readonly changes;
  private version = "";
  private value: T | undefined;

  constructor(
    private readonly db: Db,
    private readonly read: () => T,
  ) {
    this.changes = db.prepare("SELECT total_changes() || ':' || data_version FROM pragma_data_version").pluck();
  }

  /** The kept value, or a fresh read (kept from now on when outside a transaction). */
  get(): T {
    if (this.db.inTransaction) return this.read();
    const version = this.changes.get() as string;
    if (version !== this.version || this.value === undefined) {
      this.value = deepFreeze(this.read());
      this.version = version;
    }
    return this.value;
  }
}
