import { isWaitingForBackoff } from "../queue/drain-backoff.js";
import type { RepairEntry } from "../queue/repair-entry.js";
import { allowancesOf, domainValueOf, type DomainAllowance, type PacingDomain, type PacingInput } from "./repair-pacing.js";

/** One domain value as operators see it: its allowance, why it last changed, and how many repairs it has in progress. */
export interface DomainPacing extends DomainAllowance {
  /** Processing entries in the domain that take a slot (those waiting out a drain back-off or yielded take none). */
  readonly inProgress: number;
}

/**
 * Every domain value's allowance and entries in progress, sorted by domain and value: what `repairPacing` and the
 * allowance gauge report. `max` is `max_concurrent_repairs`; `now` tells which entries wait out a back-off;
 * `yielded` are the control-plane entries the last pass found without the turn (see RepairPlan.yielded), which the
 * decision does not count either.
 */
export function pacingReport(
  input: PacingInput,
  entries: readonly RepairEntry[],
  max: number,
  now: number,
  yielded: ReadonlySet<number> = new Set(),
): DomainPacing[] {
  const counts = new Map<string, number>();
  for (const e of entries) {
    if (e.deleted || e.status !== "processing" || isWaitingForBackoff(e, now) || yielded.has(e.index)) continue;
    for (const domain of input.domains) {
      const value = domainValueOf(domain, e.machineType, input.racks.get(e.address) ?? null);
      if (value !== null) counts.set(`${domain}\u0000${value}`, (counts.get(`${domain}\u0000${value}`) ?? 0) + 1);
    }
  }
  return allowancesOf(input, entries, max).map((a) => ({ ...a, inProgress: counts.get(`${a.domain}\u0000${a.value}`) ?? 0 }));
}

/** What `repairPacing` answers: whether pacing is on, by which domains, and each domain value. */
export interface RepairPacingView {
  readonly enabled: boolean;
  readonly paceBy: readonly PacingDomain[];
  readonly domains: readonly DomainPacing[];
}
