import { StoreBusyError, StoreUnavailableError } from "../../store-errors.js";

/**
 * What a failed SQLite call says about the database file, from its error code: `busy` (another process holds the
 * write lock; try again), `read-only`, `full` (the disk), `io` (the operating system refused a read or write) or
 * `corrupt` (damaged pages, or not a SQLite file). Null for anything else, such as a constraint or an SQL error.
 */
export type DatabaseFailureKind = "busy" | "read-only" | "full" | "io" | "corrupt";

/** An error from a SQLite call that tells something about the database file itself. */
export interface DatabaseFailure {
  readonly kind: DatabaseFailureKind;
  /** SQLite's extended result code, e.g. SQLITE_IOERR_WRITE. */
  readonly code: string;
  readonly message: string;
}

const KIND_BY_PRIMARY_CODE: Readonly<Record<string, DatabaseFailureKind>> = {
  SQLITE_BUSY: "busy",
  SQLITE_READONLY: "read-only",
  SQLITE_FULL: "full",
  SQLITE_IOERR: "io",
  SQLITE_CORRUPT: "corrupt",
  SQLITE_NOTADB: "corrupt",
};

/** Classifies an error thrown by better-sqlite3 (its SqliteError carries the extended code); null when unrelated. */
export function databaseFailureOf(err: unknown): DatabaseFailure | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== "string") return null;
  // Extended codes add a suffix to the primary one: SQLITE_IOERR_FSYNC, SQLITE_BUSY_SNAPSHOT, SQLITE_READONLY_DBMOVED.
  const primary = code.match(/^SQLITE_[A-Z]+/)?.[0];
  const kind = primary === undefined ? undefined : KIND_BY_PRIMARY_CODE[primary];
  return kind === undefined ? null : { kind, code, message: err.message };
}

/** A sentence naming the database and what is wrong with it, for /health and the log. */
export function describeDatabaseFailure(file: string, failure: DatabaseFailure): string {
  switch (failure.kind) {
    case "busy":
      return `database ${file} is busy: another process holds its write lock`;
    case "read-only":
      return `database ${file} is read-only (${failure.code}: ${failure.message})`;
    case "full":
      return `database ${file} cannot grow: the disk is full (${failure.code}: ${failure.message})`;
    case "io":
      return `database ${file} has an I/O error (${failure.code}: ${failure.message})`;
    case "corrupt":
      return `database ${file} is corrupt (${failure.code}: ${failure.message}); restore it from a backup`;
  }
}

/**
 * The store's error for a failure of the database file, with the SQLite error as its `cause` (for the log): busy
 * becomes StoreBusyError, any other failure StoreUnavailableError, each with a message that names no path or SQL.
 * Any other error is returned as it is.
 */
export function asStoreError(err: unknown): unknown {
  const failure = databaseFailureOf(err);
  if (failure === null) return err;
  if (failure.kind === "busy") {
    return new StoreBusyError("the database is busy: another process holds its write lock (kintsugi does not wait for it); nothing was changed, try again", {
      cause: err,
    });
  }
  return new StoreUnavailableError(`the database cannot be used (${failure.kind}); GET /health says more and the server log has the details`, { cause: err });
}
