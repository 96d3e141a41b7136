import { parseAddress } from "../shared/address.js";

/**
 * When an operator last released each machine's hold (kintsugi), by canonical address, in milliseconds since the
 * epoch. Escalation counts only the repairs created after a machine's last release: releasing a repeat offender is
 * the operator's word that its past repairs are dealt with, and the next poll must not hold it again for them.
 */
export type EscalationReleases = ReadonlyMap<string, number>;

/**
 * The most releases kept (the machines of a large data center): the newest are kept, so the stored value stays
 * bounded whatever clients do. A release older than every escalation window changes nothing anyway.
 */
export const MAX_ESCALATION_RELEASES = 10_000;

/** The releases with `address` released at `at` (replacing its earlier release), the newest `max` kept. */
export function withRelease(releases: EscalationReleases, address: string, at: number, max: number = MAX_ESCALATION_RELEASES): Map<string, number> {
  const next = new Map(releases);
  next.delete(address);
  next.set(address, at);
  if (next.size <= max) return next;
  return new Map([...next].sort(([, a], [, b]) => b - a).slice(0, max));
}

/** The releases as stored: a plain object of address to time, the form both backends keep as JSON. */
export function storedReleases(releases: EscalationReleases): Record<string, number> {
  return Object.fromEntries(releases);
}

/**
 * The releases read back from a stored value, which may be hostile (a copied database, another writer): a value
 * that is not an object reads as none; an item whose key is not an address in canonical form, or whose time is not a
 * non-negative safe integer, is left out; at most MAX_ESCALATION_RELEASES (the newest) are kept.
 */
export function readReleases(value: unknown): Map<string, number> {
  const releases = new Map<string, number>();
  if (value === null || typeof value !== "object" || Array.isArray(value)) return releases;
  for (const [address, at] of Object.entries(value)) {
    const parsed = parseAddress(address);
    if (!parsed.ok || parsed.address !== address) continue;
    if (typeof at !== "number" || !Number.isSafeInteger(at) || at < 0) continue;
    releases.set(address, at);
  }
  if (releases.size <= MAX_ESCALATION_RELEASES) return releases;
  return new Map([...releases].sort(([, a], [, b]) => b - a).slice(0, MAX_ESCALATION_RELEASES));
}
