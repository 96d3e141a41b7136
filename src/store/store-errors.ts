/**
 * The store's one error vocabulary, thrown by both drivers and the store's own rules. Code outside src/store/ reads
 * these, never a driver's own errors; the API maps each `code` to its catalogue (src/graphql/errors.ts).
 */

/** Another process holds the store's write lock (an operator's sqlite3 shell); nothing was written, try again. */
export class StoreBusyError extends Error {
  override readonly name = "StoreBusyError";
  readonly code = "STORE_BUSY";
}

/**
 * The store cannot be reached or written now: etcd does not answer, or the SQLite file is read-only, full, failing or
 * corrupt. The message says whether a write may have happened; the driver's own error is the `cause`, for the log.
 */
export class StoreUnavailableError extends Error {
  override readonly name = "StoreUnavailableError";
  readonly code = "STORE_UNAVAILABLE";
}

/** A guarded write was refused: this replica is not (or no longer) the leader. Nothing was written. */
export class NotLeaderError extends Error {
  override readonly name = "NotLeaderError";
  readonly code = "NOT_LEADER";
}

/** A hold write was refused by its rules (bad request, too many holds, nothing to release). Nothing was written. */
export class HoldRefusedError extends Error {
  override readonly name = "HoldRefusedError";
  readonly code = "HOLD_REFUSED";
}

/** A write kept conflicting with concurrent writes and gave up after its retries. Nothing was written. */
export class StoreConflictError extends Error {
  override readonly name = "StoreConflictError";
  readonly code = "STORE_CONFLICT";
}

/**
 * etcd refused a write as too large (`--max-txn-ops`, `--max-request-bytes`), or the store refused to send one it
 * knows would be refused. The backend answered: this is no outage. Nothing was written.
 */
export class StoreLimitError extends Error {
  override readonly name = "StoreLimitError";
  readonly code = "STORE_LIMIT";
}

/** The SQLite file cannot be opened, locked or brought to the newest schema; the message names the file and the cause. */
export class DatabaseOpenError extends Error {
  override readonly name = "DatabaseOpenError";
}
