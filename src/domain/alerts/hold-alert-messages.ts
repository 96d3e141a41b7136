import type { Alert } from "./alert.js";
import { escapeControlCharacters } from "../shared/untrusted-text.js";

/** A `machineHoldEvents` payload as the API sends it (enums upper-case, times RFC 3339). */
export interface MachineHoldEventPayload {
  readonly kind: "SET" | "RELEASED" | "EXPIRED";
  readonly hold: { readonly address: string; readonly reason: string; readonly setBy: string; readonly setAt: string | null; readonly until: string | null };
  readonly actor: string;
}

/**
 * The alert for one change of a hold set through the API:
 * - SET: "machine held: 10.0.0.1 by alice" (kind `held`, warning: repairs of the machine stop), the reason as text,
 *   until when;
 * - RELEASED: "machine released: 10.0.0.1 by bob" (kind `cleared`, info), with who had set it and why;
 * - EXPIRED: "machine hold ended: 10.0.0.1" (kind `cleared`, info), when it ended, who had set it and why.
 * The reason and the names are the server's words (any token holder's): control characters are escaped here, and
 * each chat format escapes its own markup. Holds of many machines set at once are grouped, one subject per machine.
 */
export function alertForHoldEvent(event: MachineHoldEventPayload): Alert {
  const { hold } = event;
  const address = escapeControlCharacters(hold.address);
  const actor = escapeControlCharacters(event.actor);
  const setBy = escapeControlCharacters(hold.setBy);
  const reason = escapeControlCharacters(hold.reason);
  const until = hold.until ?? "until released";
  if (event.kind === "SET") {
    const group = { key: `held:by ${actor}`, plural: `machines held by ${actor}`, subject: address };
    return { kind: "held", severity: "warning", title: `machine held: ${address} by ${actor}`, text: reason, fields: { until }, group };
  }
  const fields = { "held by": setBy, ...(hold.setAt !== null && { "held since": hold.setAt }) };
  if (event.kind === "RELEASED") {
    const group = { key: `cleared:released by ${actor}`, plural: `machines released by ${actor}`, subject: address };
    return { kind: "cleared", severity: "info", title: `machine released: ${address} by ${actor}`, text: reason, fields, group };
  }
  const group = { key: "cleared:hold ended", plural: "machine holds ended", subject: address };
  return { kind: "cleared", severity: "info", title: `machine hold ended: ${address}`, text: reason, fields: { ...fields, ended: until }, group };
}
