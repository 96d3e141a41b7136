import { describeHold, type MachineHold } from "../holds/machine-holds.js";
import type { EntryCommand } from "./command-marker.js";

/** What an unfinished entry is waiting for right now; GraphQL `RepairWaitKind`. */
export type WaitKind = (typeof WAIT_KINDS)[number];

export const WAIT_KINDS = [
  "QUEUE_DISABLED",
  "CONCURRENCY",
  "CONTROL_PLANE",
  "MACHINE_BUSY",
  "BACKOFF",
  "HOLD",
  "PACING",
  "WATCHING",
  "DWELL",
  "PROOF",
  "DRAINING",
  "COMMAND",
] as const;

/**
 * Why an unfinished entry is not moving right now, as data: the kind, a sentence for people, when the wait ends by
 * itself (milliseconds since the epoch; null when only something else ends it), the pacing domain it waits for
 * (`rack=3`, `machine_type=qemu`) and the entry it waits for (the one repairing its machine, the control plane
 * in progress, or the entry of the control plane that is not Ready), when there is one.
 */
export interface WaitingFor {
  readonly kind: WaitKind;
  readonly message: string;
  readonly until: number | null;
  readonly domain: string | null;
  readonly entryIndex?: number;
}

const iso = (ms: number) => new Date(ms).toISOString();
const wait = (kind: WaitKind, message: string, until: number | null = null, domain: string | null = null): WaitingFor => ({ kind, message, until, domain });

/** The repair queue is disabled: nothing starts or moves on until it is enabled again. */
export function waitForQueueEnabled(): WaitingFor {
  return wait("QUEUE_DISABLED", "the repair queue is disabled");
}

/** The most held entries a slot wait names: the rest are counted. */
const NAMED_HELD_SLOTS = 5;

/**
 * Every slot is taken: `max_concurrent_repairs` entries are in progress. `heldSlots` are those of them held mid-repair
 * by a machine hold: they keep their slots until the holds end, so the wait names them (the operator's way out).
 */
export function waitForSlot(maxConcurrentRepairs: number, heldSlots: readonly number[] = []): WaitingFor {
  const full = `max_concurrent_repairs (${maxConcurrentRepairs}) reached`;
  if (heldSlots.length === 0) return wait("CONCURRENCY", full);
  const more = heldSlots.length - NAMED_HELD_SLOTS;
  const named = heldSlots.slice(0, NAMED_HELD_SLOTS).join(", ") + (more > 0 ? ` and ${more} more` : "");
  const one = heldSlots.length === 1;
  return wait(
    "CONCURRENCY",
    `${full}; ${one ? "entry" : "entries"} ${named} ${one ? "is" : "are"} held mid-repair and keep${one ? "s its slot until its hold ends" : " their slots until their holds end"}`,
  );
}

/** A control-plane rule holds the entry (`why` from controlPlaneHold); `inTheWay` is the control-plane entry in progress, or the not-Ready one's entry. */
export function waitForControlPlane(why: string, inTheWay: number | null): WaitingFor {
  const w = wait("CONTROL_PLANE", why);
  return inTheWay === null ? w : { ...w, entryIndex: inTheWay };
}

/** Another entry (`holder`) is repairing the same machine. */
export function waitForMachine(address: string, holder: number): WaitingFor {
  return { ...wait("MACHINE_BUSY", `machine ${address} is being repaired by entry ${holder}`), entryIndex: holder };
}

/** The entry waits out its drain back-off, which ends at `expire`. */
export function waitForBackoff(expire: number): WaitingFor {
  return wait("BACKOFF", `waiting out its drain back-off until ${iso(expire)}`, expire);
}

/** The machine is held (an API hold or a Node annotation), until the hold's end when it has one. */
export function waitForHold(hold: MachineHold): WaitingFor {
  return wait("HOLD", describeHold(hold), hold.until);
}

/** `message` says which domain's allowance is used up (see pacingGate); `domain` names it as `KIND=VALUE`. */
export function waitForPacing(message: string, domain: string): WaitingFor {
  return wait("PACING", message, null, domain);
}

/** Step `step` (0-based) watches the health check until `until`, the end of its `watch_seconds`. */
export function waitForWatch(step: number, watchSeconds: number, until: number): WaitingFor {
  return wait("WATCHING", `step ${step + 1}: watching the health check for ${watchSeconds}s, until ${iso(until)}`, until);
}

/**
 * The health check (and every signal the operation requires) said healthy; the entry succeeds once they held
 * continuously until `until`, the end of `success_dwell_seconds` (a relapse starts the dwell again).
 */
export function waitForDwell(dwellSeconds: number, until: number): WaitingFor {
  return wait("DWELL", `healthy: proving the repair for ${dwellSeconds}s, until ${iso(until)} (a relapse starts it again)`, until);
}

/** The health check said healthy, but proof of repair is missing `what` (signals, or the step's repair command). */
export function waitForProof(what: string): WaitingFor {
  return wait("PROOF", `waiting for proof: ${what}`);
}

/** Step `step` (0-based) evicts the pods of `node` until `deadline` (`eviction_timeout_seconds`), then backs off. */
export function waitForDrain(step: number, node: string, deadline: number): WaitingFor {
  const what = node === "" ? "draining its node" : `draining node ${node}`;
  return wait("DRAINING", `step ${step + 1}: ${what}, evicting pods until ${iso(deadline)}`, deadline);
}

/** A command of the entry is running (its timeout and retries end it, not a time known here). */
export function waitForCommand(command: EntryCommand, step: number): WaitingFor {
  const what =
    command === "repair"
      ? `step ${step + 1}: running the repair command`
      : command === "diagnostics"
        ? "running the diagnostics command"
        : "running the success command";
  return wait("COMMAND", what);
}
