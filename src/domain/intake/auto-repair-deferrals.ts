import { DEFERRED_KINDS, SKIP_KINDS, type DeferredKind, type SkipKind } from "./skip-kinds.js";
import type { SkippedCounts } from "./skipped-bound.js";

/** The counts of a poll's skips as a record: every kind present, 0 when none (the metrics' series). */
export function skipsByKind(counts: SkippedCounts): Record<SkipKind, number> {
  const record = Object.fromEntries(SKIP_KINDS.map((kind) => [kind, 0])) as Record<SkipKind, number>;
  for (const { kind, machines } of counts.byKind) record[kind] = machines;
  return record;
}

/** What the deferral rules read of a skipped machine. */
export interface SkipOfPoll {
  readonly kind: SkipKind;
  readonly rack: number | null;
}

/** The machines one poll deferred for one reason: how many, and in which racks (ascending; unknown racks left out). */
export interface DeferralGroup {
  readonly kind: DeferredKind;
  readonly machines: number;
  readonly racks: ReadonlyArray<{ readonly rack: number; readonly machines: number }>;
}

/** What one successful poll deferred, by reason in {@link DEFERRED_KINDS} order; empty when it deferred nothing. */
export type DeferralSummary = readonly DeferralGroup[];

/**
 * Groups the deferred machines of a poll by reason and rack. `counts` (the outcome's whole counts, when it keeps them)
 * give each reason's number of machines: an outcome lists at most 1,000 skips, so its racks are those of the listed.
 */
export function summarizeDeferrals(skipped: readonly SkipOfPoll[], counts?: Readonly<Record<SkipKind, number>>): DeferralSummary {
  return DEFERRED_KINDS.flatMap((kind): DeferralGroup[] => {
    const deferred = skipped.filter((s) => s.kind === kind);
    const machines = counts?.[kind] ?? deferred.length;
    if (machines === 0) return [];
    const perRack = new Map<number, number>();
    for (const s of deferred) if (s.rack !== null) perRack.set(s.rack, (perRack.get(s.rack) ?? 0) + 1);
    const racks = [...perRack].sort(([a], [b]) => a - b).map(([rack, machines]) => ({ rack, machines }));
    return [{ kind, machines, racks }];
  });
}

/** How many machines a summary defers in all. */
export function deferredMachines(summary: DeferralSummary): number {
  return summary.reduce((n, g) => n + g.machines, 0);
}

/**
 * What a deferral is, for telling a new deferral from the same one going on: its reasons, and for the per-rack limit its
 * racks (a rack over the limit is a place to look at; which machines wait for a reboot or the cap changes poll by
 * poll and is no news). Two summaries with the same key are the same deferral, whatever their counts.
 */
export function deferralKey(summary: DeferralSummary): string {
  return summary.map((g) => (g.kind === "rack_limit" ? `${g.kind}:${g.racks.map((r) => r.rack).join(",")}` : g.kind)).join(" ");
}
