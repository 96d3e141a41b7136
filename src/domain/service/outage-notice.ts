/**
 * When a dependency's failures are worth a log line. A loop that calls sabakan or Kubernetes on every pass would
 * otherwise log every failed call (two lines a second while one is down, about 170,000 a day): instead the first
 * failure of a run is said, then a reminder at most every `reminderMs` while it lasts, and one line when a call works
 * again. Retries back off from a first delay, doubling up to a cap.
 */

/** What a caller remembers of one dependency's calls. */
export interface OutageState {
  /** When the current run of failures began (ms since the epoch); null while calls work. */
  readonly downSince: number | null;
  /** When this run of failures was last logged. */
  readonly loggedAt: number | null;
  /** Failed calls in the current run. */
  readonly failures: number;
}

/** Calls work (nothing failed yet, or the last call worked). */
export const REACHABLE: OutageState = { downSince: null, loggedAt: null, failures: 0 };

/** How often a run of failures is recalled in the log while it lasts. */
export const OUTAGE_REMINDER_MS = 5 * 60_000;

/** The line to write: the run began, it still lasts (a reminder), it ended; or none. */
export type OutageNotice = "down" | "still-down" | "back" | null;

export interface OutageStep {
  readonly state: OutageState;
  readonly notice: OutageNotice;
}

/**
 * The state after one call that failed or worked at `now`, and the line it calls for. A failure starts a run (logged
 * as `down`) or continues it (logged as `still-down` once `reminderMs` have passed since the last line); a call that
 * works ends a run (logged as `back`) and says nothing otherwise. A clock that went back counts as no time passing.
 */
export function outageStep(state: OutageState, outcome: "failed" | "worked", now: number, reminderMs = OUTAGE_REMINDER_MS): OutageStep {
  if (outcome === "worked") {
    return state.downSince === null ? { state, notice: null } : { state: REACHABLE, notice: "back" };
  }
  if (state.downSince === null) return { state: { downSince: now, loggedAt: now, failures: 1 }, notice: "down" };
  const failures = state.failures + 1;
  const due = state.loggedAt === null || now - state.loggedAt >= reminderMs;
  return due ? { state: { downSince: state.downSince, loggedAt: now, failures }, notice: "still-down" } : { state: { ...state, failures }, notice: null };
}

/**
 * How long to wait before the next try after `failures` failed calls in a row: `firstMs` after the first, doubling,
 * never more than `capMs` (0 failures: `firstMs`).
 */
export function retryDelay(failures: number, firstMs: number, capMs: number): number {
  const doublings = Math.min(Math.max(failures - 1, 0), 30);
  return Math.min(firstMs * 2 ** doublings, capMs);
}
