import { expiredHolds, isHoldActive, type StoredMachineHold } from "../domain/holds/machine-holds.js";
import { RUNNER_ACTOR } from "../domain/queue/repair-history.js";
import type { MachineHoldPort } from "../store/store-port.js";
import type { Log } from "../support/log.js";

/** The stored holds a repair pass decides with, and when the first of them ends (null: none ends by itself). */
export interface PassHolds {
  readonly stored: readonly StoredMachineHold[];
  readonly nextEnd: number | null;
}

/**
 * The stored holds for a pass at `now`. The holds that have ended are removed from the store first (the leader's
 * work: one write, announced as `expired`, which alerts); when that write fails the pass goes on, the ended holds
 * simply not counting (activeHolds leaves them out), and the next pass tries again.
 */
export async function holdsForPass(port: MachineHoldPort | undefined, now: number, log: Log): Promise<PassHolds> {
  if (port === undefined) return { stored: [], nextEnd: null };
  let stored = port.list();
  if (expiredHolds(stored, now).length > 0) {
    try {
      await port.removeExpired(now, RUNNER_ACTOR);
      stored = port.list();
    } catch (err) {
      log.warn("removing expired machine holds failed; they no longer hold, and the next pass removes them", { err: (err as Error).message });
    }
  }
  const ends = stored.filter((h) => isHoldActive(h, now) && h.until !== null).map((h) => h.until as number);
  return { stored, nextEnd: ends.length === 0 ? null : Math.min(...ends) };
}

/** The earlier of two wake times, either of which may be absent. */
export function earlierWake(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}
