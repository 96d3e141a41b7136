import type { EscalationHold } from "../domain/intake/auto-repair-intake.js";
import { validateHoldRequest } from "../domain/holds/machine-holds.js";
import type { KintsugiStore } from "../store/store-port.js";
import type { Log } from "../support/log.js";

/** Who sets the holds escalation asks for (`setBy` of the hold, actor of its write). */
export const ESCALATION_ACTOR = "escalation";

/**
 * Stores the holds escalation asked for (`repair.escalation` without an operation), until released. Each is its own
 * write after the decision's commit; one that fails (the store, too many holds) is logged, and the next poll or
 * pass, finding the machine still a repeat offender and not held, asks again.
 */
export async function holdEscalated(store: Pick<KintsugiStore, "holds">, holds: readonly EscalationHold[], now: number, log: Log): Promise<void> {
  for (const h of holds) {
    try {
      await store.holds.hold(
        (stored) => validateHoldRequest({ address: h.address, reason: h.reason, setBy: ESCALATION_ACTOR, until: null }, stored, now),
        ESCALATION_ACTOR,
      );
      log.warn("a repeat offender is held instead of repaired again", { address: h.address, serial: h.serial, reason: h.reason });
    } catch (err) {
      log.warn("a repeat offender could not be held; the next round tries again", { address: h.address, reason: h.reason, err: (err as Error).message });
    }
  }
}
