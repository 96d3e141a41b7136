import Database from "better-sqlite3";
import { StoreBusyError, StoreUnavailableError } from "../../store-errors.js";

/** An error from a SQLite call that tells something about the database file itself. */
export interface DatabaseFailure {
  readonly kind: "busy" | "read-only" | "full" | "io" | "corrupt";
  /** SQLite's extended result code, e.g. SQLITE_IOERR_WRITE. */
  readonly code: string;
  readonly message: string;
}

const KIND_BY_PRIMARY_CODE: Readonly<Record<string, DatabaseFailure["kind"]>> = {
  SQLITE_BUSY: "busy",
  SQLITE_READONLY: "read-only",
  SQLITE_FULL: "full",
  SQLITE_IOERR: "io",
  SQLITE_CORRUPT: "corrupt",
  SQLITE_NOTADB: "corrupt",
};

/** Classifies an error thrown by better-sqlite3; null when it says nothing of the file (a constraint, an SQL error). */
export function databaseFailureOf(err: unknown): DatabaseFailure | null {
  if (!(err instanceof Error)) return null;
  const code = (err as { code?: unknown }).code;
  if (typeof code !== "string") return null;
  // Extended codes add a suffix to the primary one: SQLITE_IOERR_FSYNC, SQLITE_BUSY_SNAPSHOT, SQLITE_READONLY_DBMOVED.
  const primary = code.match(/^SQLITE_[A-Z]+/)?.[0];
  const kind = primary === undefined ? undefined : KIND_BY_PRIMARY_CODE[primary];
  return kind === undefined ? null : { kind, code, message: err.message };
}

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
 * The store's error for a failed SQLite call `what`, the SQLite error its `cause`; any other SQLite error (a missing
 * table, a constraint) is still unavailable. Other errors (the driver's own refusals) pass as they are.
 */
export function asStoreError(what: string, err: unknown): unknown {
  const failure = databaseFailureOf(err);
  if (failure?.kind === "busy") {
    const message = "the database is busy: another process holds its write lock (kintsugi does not wait for it); nothing was changed, try again";
    return new StoreBusyError(`${what}: ${message}`, { cause: err });
  }
  if (failure !== null) {
    const message = `the database cannot be used (${failure.kind}); GET /health says more and the server log has the details`;
    return new StoreUnavailableError(`${what}: ${message}`, { cause: err });
  }
  if (!(err instanceof Database.SqliteError)) return err;
  return new StoreUnavailableError(`${what}: the database cannot be used (an unexpected SQLite error); the server log has the details`, { cause: err });
}
