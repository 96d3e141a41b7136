import type { RepairEntry } from "../queue/repair-entry.js";
import type { ProofOutcome } from "../proof/repair-evidence.js";

/** A failure domain repairs are paced by. */
export type PacingDomain = (typeof PACING_DOMAINS)[number];

export const PACING_DOMAINS = ["rack", "machine_type"] as const;

/** One finished entry, as pacing reads it: what it was and how it ended, at its last transition. */
export interface FinishedOutcome {
  readonly entryIndex: number;
  readonly machineType: string;
  /** The machine's rack in sabakan; null when unknown (no sabakan data for the machine). */
  readonly rack: number | null;
  readonly status: "succeeded" | "failed";
  /** Milliseconds since the epoch. */
  readonly time: number;
  /** Its proof of repair (see proofOutcomeOf); absent: its operation required none when it ran. */
  readonly proof?: ProofOutcome;
}

/** What the decision needs to pace repairs: the configured domains, the racks known, and the finished outcomes. */
export interface PacingInput {
  readonly domains: readonly PacingDomain[];
  /** The rack of each machine by address, as far as sabakan says; a machine missing here is not paced by rack. */
  readonly racks: ReadonlyMap<string, number>;
  /** Finished entries in the order they finished (time, then index). */
  readonly finished: readonly FinishedOutcome[];
}

/** Why an allowance is what it is: the last finished entry of the domain (null = none yet, allowance 1). */
export interface PacingChange {
  readonly entryIndex: number;
  readonly status: "succeeded" | "failed";
  readonly time: number;
}

/** One domain value's allowance and why it last changed. */
export interface DomainAllowance {
  readonly domain: PacingDomain;
  /** The rack number or the machine type, as text. */
  readonly value: string;
  readonly allowance: number;
  readonly lastChange: PacingChange | null;
}

/**
 * Whether a finished entry counts as a proven success for pacing: it SUCCEEDED and, when its operation required proof
 * of repair (`success_requires`, `success_dwell_seconds`), that proof was given. A success of an operation without
 * proof counts as CKE's health check says (any success); a success whose required proof is missing (it cannot
 * happen through the runner, only through a config changed under it) does not double the allowance, but does not
 * reset it either.
 */
export function isProvenSuccess(outcome: Pick<FinishedOutcome, "status" | "proof">): boolean {
  return outcome.status === "succeeded" && outcome.proof !== "unproven";
}

/** The value of `domain` for a machine of type `machineType` at rack `rack`; null when the machine is not in it. */
export function domainValueOf(domain: PacingDomain, machineType: string, rack: number | null): string | null {
  if (domain === "machine_type") return machineType;
  return rack === null ? null : String(rack);
}

/**
 * Slow start: the allowance of one domain value from the finished entries of every domain, in the order they
 * finished. It starts at 1, doubles after each proven success of an entry in the domain (up to `max`) and returns to
 * 1 after each failure; it is never below 1, so an isolated fault is always repaired. A pure function of the
 * history, so every replica computes the same allowance and a restart loses nothing.
 */
export function allowanceOf(domain: PacingDomain, value: string, finished: readonly FinishedOutcome[], max: number): DomainAllowance {
  const ceiling = Math.max(1, max);
  let allowance = 1;
  let lastChange: PacingChange | null = null;
  for (const outcome of finished) {
    if (domainValueOf(domain, outcome.machineType, outcome.rack) !== value) continue;
    if (outcome.status === "succeeded" && !isProvenSuccess(outcome)) continue;
    allowance = isProvenSuccess(outcome) ? Math.min(ceiling, allowance * 2) : 1;
    lastChange = { entryIndex: outcome.entryIndex, status: outcome.status, time: outcome.time };
  }
  return { domain, value, allowance, lastChange };
}

/**
 * The allowance of every domain value that has a finished entry or an entry in `entries`, sorted by domain and
 * value. `max` is `max_concurrent_repairs`, the ceiling.
 */
export function allowancesOf(input: PacingInput, entries: readonly RepairEntry[], max: number): DomainAllowance[] {
  const values = new Map<string, [PacingDomain, string]>();
  const note = (domain: PacingDomain, value: string | null) => {
    if (value !== null) values.set(`${domain}\u0000${value}`, [domain, value]);
  };
  for (const domain of input.domains) {
    for (const o of input.finished) note(domain, domainValueOf(domain, o.machineType, o.rack));
    for (const e of entries) note(domain, domainValueOf(domain, e.machineType, input.racks.get(e.address) ?? null));
  }
  return [...values.keys()].sort().map((key) => {
    const [domain, value] = values.get(key) as [PacingDomain, string];
    return allowanceOf(domain, value, input.finished, max);
  });
}

/**
 * `input` with the failures a pass decides (each entry as it fails) after its finished outcomes: a failure throttles
 * the starts of the pass that decides it, as it does every later pass once committed.
 */
export function withFailuresDecided(input: PacingInput, failed: readonly RepairEntry[]): PacingInput {
  if (failed.length === 0) return input;
  const outcomes = failed.map((e): FinishedOutcome => ({
    entryIndex: e.index,
    machineType: e.machineType,
    rack: input.racks.get(e.address) ?? null,
    status: "failed",
    time: e.lastTransitionTime ?? 0,
  }));
  return { ...input, finished: [...input.finished, ...outcomes] };
}

function describeAllowance(a: DomainAllowance): string {
  const repairs = a.allowance === 1 ? "1 repair" : `${a.allowance} repairs`;
  const label = a.domain === "rack" ? `rack ${a.value}` : `machine type ${JSON.stringify(a.value)}`;
  const why =
    a.lastChange === null
      ? "no finished entry yet"
      : `last ${a.lastChange.status === "failed" ? "failure" : "success"}: entry ${a.lastChange.entryIndex} at ${new Date(a.lastChange.time).toISOString()}`;
  return `pacing: ${label} allows ${repairs} in progress (${why})`;
}

/** Counts entries in progress per domain value within one pass, and says when a queued entry must wait. */
export interface PacingGate {
  /** Why `entry` may not start now (and the domain, as `KIND=VALUE`), or null when every domain it is in has room. */
  holdReason(entry: RepairEntry): { readonly message: string; readonly domain: string } | null;
  /** Records that `entry` is in progress this pass (started, or processing and moving on). */
  admit(entry: RepairEntry): void;
}

/**
 * A gate for one pass of the decision. An entry waits when any of its domains already has as many entries in
 * progress as its allowance; entries already processing are counted but never stopped (an allowance that dropped
 * after a failure throttles new starts only).
 */
export function pacingGate(input: PacingInput, max: number): PacingGate {
  const allowances = new Map<string, DomainAllowance>();
  const inProgress = new Map<string, number>();
  const keysOf = (entry: RepairEntry): Array<[string, PacingDomain, string]> => {
    const keys: Array<[string, PacingDomain, string]> = [];
    for (const domain of input.domains) {
      const value = domainValueOf(domain, entry.machineType, input.racks.get(entry.address) ?? null);
      if (value !== null) keys.push([`${domain}\u0000${value}`, domain, value]);
    }
    return keys;
  };
  const allowance = (key: string, domain: PacingDomain, value: string): DomainAllowance => {
    let found = allowances.get(key);
    if (!found) {
      found = allowanceOf(domain, value, input.finished, max);
      allowances.set(key, found);
    }
    return found;
  };
  return {
    holdReason(entry) {
      for (const [key, domain, value] of keysOf(entry)) {
        const a = allowance(key, domain, value);
        if ((inProgress.get(key) ?? 0) >= a.allowance) return { message: describeAllowance(a), domain: `${domain}=${value}` };
      }
      return null;
    },
    admit(entry) {
      for (const [key] of keysOf(entry)) inProgress.set(key, (inProgress.get(key) ?? 0) + 1);
    },
  };
}
