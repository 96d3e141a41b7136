/** The longest time range one statistics query may cover (finished-repair records older than that are rarely kept). */
export const MAX_STATS_RANGE_DAYS = 90;
/** The most machines frequentlyRepaired lists. */
export const MAX_FREQUENT_TOP = 100;
export const DEFAULT_FREQUENT_TOP = 10;

const DAY_MS = 86_400_000;

export type StatsRange = { readonly ok: true; readonly since: number; readonly until: number } | { readonly ok: false; readonly message: string };

/**
 * The range [since, until) a statistics query covers (`until` defaults to `now`), or why not: `since` must come
 * before `until`, and the range may not exceed `maxDays` days ({@link MAX_STATS_RANGE_DAYS} unless said).
 */
export function statsRangeOf(since: number, until: number | null, now: number, maxDays: number = MAX_STATS_RANGE_DAYS): StatsRange {
  const end = until ?? now;
  if (!Number.isFinite(since) || !Number.isFinite(end)) return { ok: false, message: "since and until must be times" };
  if (since >= end) return { ok: false, message: `since (${new Date(since).toISOString()}) must be before until (${new Date(end).toISOString()})` };
  if (end - since > maxDays * DAY_MS) return { ok: false, message: `the range from since to until may cover at most ${maxDays} days` };
  return { ok: true, since, until: end };
}

/** How many machines frequentlyRepaired lists: `top` (default {@link DEFAULT_FREQUENT_TOP}), or why not. */
export function frequentTopOf(top: number | null): { readonly ok: true; readonly top: number } | { readonly ok: false; readonly message: string } {
  const value = top ?? DEFAULT_FREQUENT_TOP;
  if (!Number.isInteger(value) || value < 1 || value > MAX_FREQUENT_TOP)
    return { ok: false, message: `top must be from 1 to ${MAX_FREQUENT_TOP}, got ${value}` };
  return { ok: true, top: value };
}

/** The longest serial `machineRepairs` looks up in sabakan. */
export const MAX_SERIAL_LENGTH = 256;

/**
 * Checks a serial a client gives `machineRepairs` before it is sent to sabakan: non-empty, at most
 * MAX_SERIAL_LENGTH characters, no control characters (a client must not make kintsugi forward a megabyte).
 */
export function lookupSerialOf(serial: string): { readonly ok: true; readonly serial: string } | { readonly ok: false; readonly message: string } {
  if (serial === "") return { ok: false, message: "serial: must not be empty" };
  if (serial.length > MAX_SERIAL_LENGTH) return { ok: false, message: `serial: ${serial.length} characters, at most ${MAX_SERIAL_LENGTH} allowed` };
  if (/[\u0000-\u001f\u007f]/.test(serial)) return { ok: false, message: "serial: must not contain control characters" };
  return { ok: true, serial };
}
