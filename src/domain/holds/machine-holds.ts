import { canonicalAddresses, parseAddress } from "../shared/address.js";
import { escapeControlCharacters, quoteUntrusted } from "../shared/untrusted-text.js";

/** The Node annotation that holds its machine: its value is the reason. Other tools may set it. */
export const HOLD_ANNOTATION = "kintsugi.cybozu.io/hold";

/** The most holds the store keeps (a client cannot make kintsugi store more). */
export const MAX_MACHINE_HOLDS = 1000;

/** The longest reason a hold keeps, in characters. */
export const MAX_HOLD_REASON_LENGTH = 512;

/** Where a hold comes from: set through the API (and stored), or read from a Node annotation. */
export type HoldSource = "api" | "annotation";

/**
 * An operator's veto on one machine: while it is active, kintsugi neither enqueues the machine nor starts its
 * queued entries, and a running step stops before its next command.
 */
export interface MachineHold {
  /** The machine's address in canonical form (see parseAddress). */
  readonly address: string;
  readonly reason: string;
  /** Who set it: the caller's token name when access control identifies it, the actor the history records otherwise. */
  readonly setBy: string;
  /** Milliseconds since the epoch; null for an annotation (Kubernetes does not say when it was set). */
  readonly setAt: number | null;
  /** When it ends by itself (milliseconds since the epoch); null: until released. */
  readonly until: number | null;
  readonly source: HoldSource;
}

/** A hold as the store keeps it (holds from the API only). */
export type StoredMachineHold = Omit<MachineHold, "source" | "setAt"> & { readonly setAt: number };

/** What `holdMachine` asks for. */
export interface HoldRequest {
  readonly address: string;
  readonly reason: string;
  readonly setBy: string;
  readonly until: number | null;
}

/** What the hold rules read of a Node: its name, its machine's canonical address (null: none), its annotations. */
export interface HoldNode {
  readonly name: string;
  readonly address: string | null;
  readonly annotations: Readonly<Record<string, string>>;
}

/** Whether a hold is in force at `now`: one that has an `until` ends at that instant. */
export function isHoldActive(hold: Pick<MachineHold, "until">, now: number): boolean {
  return hold.until === null || now < hold.until;
}

/** The holds the Nodes' `kintsugi.cybozu.io/hold` annotations set; a Node without an address holds nothing. */
export function holdsFromAnnotations(nodes: readonly HoldNode[]): MachineHold[] {
  const holds: MachineHold[] = [];
  for (const node of nodes) {
    const reason = node.annotations[HOLD_ANNOTATION];
    if (reason === undefined || node.address === null) continue;
    const text = reason.trim() === "" ? "(no reason given)" : reason.slice(0, MAX_HOLD_REASON_LENGTH);
    holds.push({
      address: node.address,
      reason: text,
      setBy: `annotation ${HOLD_ANNOTATION} on Node ${node.name}`,
      setAt: null,
      until: null,
      source: "annotation",
    });
  }
  return holds;
}

/**
 * The holds Kubernetes Nodes' annotations set, one per address of each held Node: its canonical InternalIPs and its
 * name (an entry may name its machine by node name).
 */
export function annotationHolds(
  nodes: ReadonlyArray<{ readonly name: string; readonly internalIPs: readonly string[]; readonly annotations: Readonly<Record<string, string>> }>,
): MachineHold[] {
  // Only held Nodes are read further: most Nodes carry no hold, and their addresses need not be parsed every pass.
  return holdsFromAnnotations(
    nodes
      .filter((n) => n.annotations[HOLD_ANNOTATION] !== undefined)
      .flatMap((n) => [n.name, ...canonicalAddresses(n.internalIPs)].map((address) => ({ name: n.name, address, annotations: n.annotations }))),
  );
}

/**
 * The holds in force at `now`, by address: expired stored holds are left out; when a machine has both, the stored
 * hold is the one shown (it says who and until when), the annotation still holding it once the stored one expires.
 */
export function activeHolds(stored: readonly StoredMachineHold[], annotations: readonly MachineHold[], now: number): ReadonlyMap<string, MachineHold> {
  const active = new Map<string, MachineHold>();
  for (const hold of annotations) if (!active.has(hold.address)) active.set(hold.address, hold);
  for (const hold of stored) if (isHoldActive(hold, now)) active.set(hold.address, { ...hold, source: "api" });
  return active;
}

/** The stored holds that have ended by `now` (to be removed and alerted as expired). */
export function expiredHolds(stored: readonly StoredMachineHold[], now: number): StoredMachineHold[] {
  return stored.filter((h) => !isHoldActive(h, now));
}

/** Why a held machine waits, for waitReason and skip reasons: `held by WHO: REASON until T` (no `until` when none). */
export function describeHold(hold: MachineHold): string {
  const until = hold.until === null ? "" : ` until ${new Date(hold.until).toISOString()}`;
  return `held by ${escapeControlCharacters(hold.setBy)}: ${escapeControlCharacters(hold.reason)}${until}`;
}

/**
 * Checks a request to hold a machine at `now` against what is stored and returns the hold to store, or why not:
 * the address must be an address (kept in canonical form), the reason non-empty and at most
 * MAX_HOLD_REASON_LENGTH characters, `until` (when given) in the future, and a new address may not take the store
 * past `max` (MAX_MACHINE_HOLDS) active holds. Holding a held machine again replaces its hold (new reason, new expiry).
 */
export function validateHoldRequest(
  request: HoldRequest,
  stored: readonly StoredMachineHold[],
  now: number,
  max: number = MAX_MACHINE_HOLDS,
): { ok: true; hold: StoredMachineHold } | { ok: false; message: string } {
  const parsed = parseAddress(request.address);
  if (!parsed.ok) return { ok: false, message: `address: ${parsed.message}` };
  const reason = request.reason.trim();
  if (reason === "") return { ok: false, message: "reason: must not be empty" };
  if (reason.length > MAX_HOLD_REASON_LENGTH) return { ok: false, message: `reason: ${reason.length} characters, at most ${MAX_HOLD_REASON_LENGTH} allowed` };
  if (request.until !== null && !(Number.isFinite(request.until) && request.until > now)) {
    return { ok: false, message: `until: must be after now (${new Date(now).toISOString()})` };
  }
  const others = stored.filter((h) => h.address !== parsed.address && isHoldActive(h, now));
  if (others.length >= max) return { ok: false, message: `too many holds: at most ${max} machines may be held at once` };
  return { ok: true, hold: { address: parsed.address, reason, setBy: request.setBy, setAt: now, until: request.until } };
}

/** The error for a release of a machine that has no stored hold, quoting the address. */
export function notHeldMessage(address: string): string {
  return `machine ${quoteUntrusted(address)} has no hold set through kintsugi (a Node annotation is released by removing it)`;
}
