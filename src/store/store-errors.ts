/**
 * The store's one error vocabulary, thrown by both drivers and the store's own rules. Code outside src/store/ reads
 * these, never a driver's own errors; the API maps each `code` to its catalogue (src/graphql/errors.ts).
 */

/** An error named after its class, which the CLI tells operator errors by (its bundles keep class names: scripts/build-cli.mjs). */
export class NamedError extends Error {
  constructor(message?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** Another process holds the store's write lock (an operator's sqlite3 shell); nothing was written, try again. */
export class StoreBusyError extends NamedError {
  readonly code = "STORE_BUSY";
}

/**
 * The store cannot be reached or written now: etcd does not answer, or the SQLite file is read-only, full, failing or
 * corrupt. The message says whether a write may have happened; the driver's own error is the `cause`, for the log.
 */
export class StoreUnavailableError extends NamedError {
  readonly code = "STORE_UNAVAILABLE";
}

/** A guarded write was refused: this replica is not (or no longer) the leader. Nothing was written. */
export class NotLeaderError extends NamedError {
  readonly code = "NOT_LEADER";
}

/** A hold write was refused by its rules (bad request, too many holds, nothing to release). Nothing was written. */
export class HoldRefusedError extends NamedError {
  readonly code = "HOLD_REFUSED";
}

/** A write kept conflicting with concurrent writes and gave up after its retries. Nothing was written. */
export class StoreConflictError extends NamedError {
  readonly code = "STORE_CONFLICT";
}

/**
 * etcd refused a write as too large (`--max-txn-ops`, `--max-request-bytes`), or the store refused to send one it
 * knows would be refused. The backend answered: this is no outage. Nothing was written.
 */
export class StoreLimitError extends NamedError {
  readonly code = "STORE_LIMIT";
}

/** The SQLite file cannot be opened, locked or brought to the newest schema; the message names the file and the cause. */
export class DatabaseOpenError extends NamedError {}
