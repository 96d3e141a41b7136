import { SKIP_KINDS, type SkipKind } from "./skip-kinds.js";

/**
 * How many skipped machines one stored poll outcome lists. A listed skip is about 170 bytes of JSON, so 1,000 are
 * about 170 kB: with the poll record that shares the transaction (about 80 KiB for 10,000 machines) and the enqueued
 * entries, one poll's write stays far below etcd's default request limit of 1.5 MiB, where a whole-data-center storm
 * listing all of its 10,000 skips (about 1.7 MB) would exceed it and every poll of the storm would fail to write. On
 * SQLite the 1,000 kept outcomes then cost at most about 170 MB instead of 1.7 GB. The counts stay whole.
 */
export const LISTED_SKIPS = 1000;

/** How many machines a poll skipped for one kind. */
export interface SkipKindCount {
  readonly kind: SkipKind;
  readonly machines: number;
}

/** How many machines a poll skipped in all and per kind (the kinds it skipped any for, in {@link SKIP_KINDS} order). */
export interface SkippedCounts {
  readonly total: number;
  readonly byKind: readonly SkipKindCount[];
}

/** What the counts and the bound read of a skipped machine. */
interface KindOf {
  readonly kind: SkipKind;
  readonly rack?: number | null;
}

/** Counts skips by kind: the kinds present, in {@link SKIP_KINDS} order. */
export function countSkipped(skipped: readonly KindOf[]): SkippedCounts {
  const counts = new Map<SkipKind, number>();
  for (const s of skipped) counts.set(s.kind, (counts.get(s.kind) ?? 0) + 1);
  return { total: skipped.length, byKind: SKIP_KINDS.flatMap((kind) => (counts.has(kind) ? [{ kind, machines: counts.get(kind) ?? 0 }] : [])) };
}

/**
 * The skips a stored outcome lists, at most `limit`, with the counts of all of them. Fair to every kind: each kind
 * present gets an equal share of the list (a kind with fewer skips than its share is listed whole and leaves the
 * rest to the others), so a storm of 10,000 `queue_limit` skips cannot push the few `no_address` or `held` machines an
 * operator must act on out of the list. Within a kind, fair to every rack: the first machine of each rack, then the
 * second of each, and so on, so the racks a storm defers are all named while they number fewer than the share.
 * The list keeps the decision's order.
 */
export function boundSkipped<S extends KindOf>(skipped: readonly S[], limit: number = LISTED_SKIPS): { readonly skipped: S[]; readonly counts: SkippedCounts } {
  const counts = countSkipped(skipped);
  if (skipped.length <= limit) return { skipped: [...skipped], counts };
  const shares = fairShares(counts.byKind, limit);
  // Each skip's place within its kind and rack: 0 for the first of its rack, 1 for the second...
  const seen = new Map<string, number>();
  const ranked = skipped.map((s, index) => {
    const group = `${s.kind}\t${s.rack ?? ""}`;
    const rank = seen.get(group) ?? 0;
    seen.set(group, rank + 1);
    return { s, index, rank };
  });
  const chosen = new Set<number>();
  for (const { kind } of counts.byKind) {
    const ofKind = ranked.filter((r) => r.s.kind === kind).sort((a, b) => a.rank - b.rank || a.index - b.index);
    for (const r of ofKind.slice(0, shares.get(kind) ?? 0)) chosen.add(r.index);
  }
  return { skipped: skipped.filter((_, i) => chosen.has(i)), counts };
}

/** Splits `limit` slots among the kinds: equal shares (a slot left over goes to the smaller kinds first), a kind never getting more than it has. */
function fairShares(byKind: readonly SkipKindCount[], limit: number): Map<SkipKind, number> {
  const shares = new Map<SkipKind, number>();
  let left = limit;
  // Smallest first: a kind below its share takes all it has, and the rest is split among the bigger ones.
  const bySize = [...byKind].sort((a, b) => a.machines - b.machines || SKIP_KINDS.indexOf(a.kind) - SKIP_KINDS.indexOf(b.kind));
  bySize.forEach(({ kind, machines }, i) => {
    const remainingKinds = bySize.length - i;
    const share = Math.min(machines, Math.ceil(left / remainingKinds));
    shares.set(kind, share);
    left -= share;
  });
  return shares;
}

/** What a stored outcome keeps of a poll's skips: the bounded list and the whole counts (see {@link boundSkipped}). */
export function keptSkips<S extends KindOf>(skipped: readonly S[]): { readonly skipped: S[]; readonly skippedCounts: SkippedCounts } {
  const kept = boundSkipped(skipped);
  return { skipped: kept.skipped, skippedCounts: kept.counts };
}

/**
 * The counts of an outcome's skips: the stored ones, or, for an outcome stored before kintsugi bounded the list
 * (no counts kept), counted from the list, which is then whole.
 */
export function skippedCountsOf(outcome: { readonly skipped: readonly KindOf[]; readonly skippedCounts?: SkippedCounts | null | undefined }): SkippedCounts {
  return outcome.skippedCounts ?? countSkipped(outcome.skipped);
}

/** Whether stored counts agree with the list they go with: the list no longer than the total, no kind listed beyond its count, and the kinds summing to the total. */
export function countsMatchList(counts: SkippedCounts, skipped: readonly KindOf[]): string | null {
  const sum = counts.byKind.reduce((n, c) => n + c.machines, 0);
  if (sum !== counts.total) return `the counts by kind sum to ${sum}, not the total ${counts.total}`;
  if (skipped.length > counts.total) return `${skipped.length} skips are listed, more than the total ${counts.total}`;
  const listed = countSkipped(skipped);
  for (const { kind, machines } of listed.byKind) {
    const stored = counts.byKind.find((c) => c.kind === kind)?.machines ?? 0;
    if (machines > stored) return `${machines} ${kind} skips are listed, more than their count ${stored}`;
  }
  const kinds = counts.byKind.map((c) => c.kind);
  if (new Set(kinds).size !== kinds.length) return "a kind is counted twice";
  return null;
}

/** How many machines a poll skipped, saying when its outcome lists only some: "10,000 skipped (first 1,000 listed)". */
export function skippedPhrase(total: number, listed: number): string {
  const n = (count: number) => count.toLocaleString("en-US");
  return total > listed ? `${n(total)} skipped (first ${n(listed)} listed)` : `${n(total)} skipped`;
}
