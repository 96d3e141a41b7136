/**
 * What kintsugi knows of the services it calls (sabakan, the Kubernetes API) from its own calls to them: whether the
 * latest call worked, since when calls fail, and the newest failure's message. Nothing probes: the status follows
 * the calls kintsugi makes anyway (polls, repair passes, the gateway's forwarded queries), so it costs nothing and
 * says "not asked yet" honestly until a call is made.
 */

/** The services kintsugi depends on. */
export type DependencyName = "sabakan" | "kubernetes";

export interface DependencyStatus {
  readonly name: DependencyName;
  /** When the current run of failed calls began (ms since the epoch); null while calls work or before any call. */
  readonly downSince: number | null;
  /** Failed calls in the current run. */
  readonly failures: number;
  /** The newest failure's message while calls fail; null otherwise. */
  readonly error: string | null;
  /** When a call last failed; null when none did since start. */
  readonly lastFailedAt: number | null;
  /** When a call last worked; null when none did since start. */
  readonly lastWorkedAt: number | null;
}

/** The longest failure message kept: an error may quote a hostile server's answer. */
export const MAX_DEPENDENCY_ERROR_CHARS = 500;

/** A dependency no call has reached yet. */
export function notAsked(name: DependencyName): DependencyStatus {
  return { name, downSince: null, failures: 0, error: null, lastFailedAt: null, lastWorkedAt: null };
}

/** One call's result: it worked, or it failed with this message. */
export type DependencyCall = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** The status after a call, and whether the dependency just went `down` or came `back` (null: no change of side). */
export interface DependencyStep {
  readonly status: DependencyStatus;
  readonly change: "down" | "back" | null;
}

/**
 * The status after one call ended at `now`. A failure starts a run (`down`, since `now`) or continues it (the run
 * keeps its start, the message is the newest); a call that works ends a run (`back`). A message longer than
 * {@link MAX_DEPENDENCY_ERROR_CHARS} is cut, with an ellipsis.
 */
export function dependencyCall(status: DependencyStatus, call: DependencyCall, now: number): DependencyStep {
  if (call.ok) {
    const next = { ...status, downSince: null, failures: 0, error: null, lastWorkedAt: now };
    return { status: next, change: status.downSince === null ? null : "back" };
  }
  const error = call.error.length > MAX_DEPENDENCY_ERROR_CHARS ? `${call.error.slice(0, MAX_DEPENDENCY_ERROR_CHARS - 1)}…` : call.error;
  const downSince = status.downSince ?? now;
  const next = { ...status, downSince, failures: status.failures + 1, error, lastFailedAt: now };
  return { status: next, change: status.downSince === null ? "down" : null };
}
