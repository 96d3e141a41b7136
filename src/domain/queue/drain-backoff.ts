import { truncateToSeconds, type RepairEntry } from "./repair-entry.js";

/** CKE's drain back-off base: every back-off waits at least this long. */
export const DRAIN_BACKOFF_BASE_SECONDS = 300;

/**
 * CKE's linear drain back-off: the entry goes back to `processing / waiting`, its count grows by one, and it waits
 * `300 s + random[0, 300 s * count)` in whole seconds before the drain is retried. `random` returns [0, 1).
 */
export function drainBackoff(entry: RepairEntry, now: number, random: () => number): RepairEntry {
  const count = entry.drainBackoffCount + 1;
  const jitterSeconds = Math.floor(random() * DRAIN_BACKOFF_BASE_SECONDS * count);
  return {
    ...entry,
    status: "processing",
    stepStatus: "waiting",
    lastTransitionTime: truncateToSeconds(now),
    drainBackoffCount: count,
    drainBackoffExpire: now + (DRAIN_BACKOFF_BASE_SECONDS + jitterSeconds) * 1000,
  };
}

/**
 * Whether the entry's last transition was a drain back-off, expired or not (it is still `processing / waiting` where
 * the back-off left it): its node was uncordoned then and is not to be cordoned for it until the drain is retried.
 * A back-off sets its expiry at least the base wait after its transition time; a drain is retried only once that
 * expiry has passed, so every later transition comes less than a second before it or after it, and a
 * `drain_backoff_expire` left over from an earlier back-off (it is kept, as CKE keeps it) is not mistaken for one.
 */
export function isBackedOff(entry: RepairEntry): boolean {
  return (
    entry.status === "processing" &&
    entry.stepStatus === "waiting" &&
    entry.drainBackoffExpire !== null &&
    entry.drainBackoffExpire - (entry.lastTransitionTime ?? 0) >= DRAIN_BACKOFF_BASE_SECONDS * 1000
  );
}

/** True while the entry waits for its drain back-off to expire; such an entry takes no concurrency slot. */
export function isWaitingForBackoff(entry: RepairEntry, now: number): boolean {
  return isBackedOff(entry) && (entry.drainBackoffExpire ?? 0) > now;
}
