/**
 * Why sabakan-triggered repair left a machine alone, as a fixed set of kinds (the `reason` text says it in words).
 * Four kinds are deferrals: the machine needs repair and will get it, but a safety rule or a wait defers it now.
 * The others are skips: the machine is not to be enqueued (it has an entry already, or no usable address, or an
 * operator's hold vetoes it: `held`, alerted by the hold's own alerts rather than the poll's; or it was repaired
 * `repair.escalation`'s `max_repairs` times within its window: `escalated`, its own repair replaced by the escalation
 * operation or by a hold).
 */
export const SKIP_KINDS = [
  "rack_limit",
  "queue_limit",
  "rebooting",
  "out_of_cluster",
  "recently_repaired",
  "no_address",
  "invalid_address",
  "duplicate_address",
  "held",
  "escalated",
] as const;

export type SkipKind = (typeof SKIP_KINDS)[number];

/** The kinds that defer a machine: `maximum-unhealthy-machines-per-rack`, `maximum-repair-queue-entries`, and the rebooting waits. */
export const DEFERRED_KINDS = ["rack_limit", "queue_limit", "rebooting", "out_of_cluster"] as const satisfies readonly SkipKind[];
export type DeferredKind = (typeof DEFERRED_KINDS)[number];

/** The kinds that are plain skips. */
export const PASSED_KINDS = [
  "recently_repaired",
  "no_address",
  "invalid_address",
  "duplicate_address",
  "held",
  "escalated",
] as const satisfies readonly SkipKind[];
export type PassedKind = (typeof PASSED_KINDS)[number];

/** Whether a machine skipped for `kind` is deferred: it will be repaired once the limit or the wait ends (the API's `held`). */
export function isDeferred(kind: SkipKind): kind is DeferredKind {
  return (DEFERRED_KINDS as readonly SkipKind[]).includes(kind);
}

/**
 * The kind of a skip recorded before kintsugi kept kinds, from its reason: the wording decideIntake used then
 * ("no address", "invalid IP address: … in spec.ipv4[0]", "recently repaired", "rebooting", "out of cluster, may be
 * rebooting", "another machine with address … is already enqueued this round", "rack N: K unhealthy machines, …",
 * "too many repair requests"). Only stored records without a kind are read this way.
 */
export function legacySkipKind(reason: string): SkipKind {
  if (reason === "no address") return "no_address";
  if (reason === "recently repaired") return "recently_repaired";
  if (reason === "rebooting") return "rebooting";
  if (reason === "out of cluster, may be rebooting") return "out_of_cluster";
  if (reason === "too many repair requests") return "queue_limit";
  if (/^rack \d+: \d+ unhealthy machines/.test(reason)) return "rack_limit";
  if (reason.startsWith("another machine with address ")) return "duplicate_address";
  return "invalid_address";
}

/** A skipped machine as a store may hold it: records written before kintsugi kept kinds and racks lack them. */
export interface StoredSkippedMachine {
  readonly serial: string;
  readonly address: string | null;
  readonly state: string;
  readonly reason: string;
  readonly kind?: SkipKind | undefined;
  readonly rack?: number | null | undefined;
}

/** A stored skip with its kind (read from the reason when it was not kept) and its rack (null when not kept). */
export function skippedFromStored(s: StoredSkippedMachine): {
  serial: string;
  address: string | null;
  state: string;
  reason: string;
  kind: SkipKind;
  rack: number | null;
} {
  return { serial: s.serial, address: s.address, state: s.state, reason: s.reason, kind: s.kind ?? legacySkipKind(s.reason), rack: s.rack ?? null };
}
