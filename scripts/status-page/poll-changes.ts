// Polls collapsed to what changed: sabakan polls every minute and a broken machine is skipped poll after poll, so
// listing every poll's skips repeats the same rows. The newest poll lists all its skips (what holds now); an older
// poll lists only the skips that differ from the poll before it.
import type { Outcome, Skip } from "./model.js";

/** A skip that appeared (`new`) or ended (`gone`) since the poll before. */
export interface SkipChange {
  readonly change: "new" | "gone";
  readonly skip: Skip;
}

/** What a poll's skip rows show: all of them, the changes since the poll before, or nothing to compare with. */
export type SkipRows =
  | { readonly kind: "all"; readonly skips: readonly Skip[] }
  | { readonly kind: "changes"; readonly since: string; readonly changes: readonly SkipChange[] }
  | { readonly kind: "none" };

const keyOf = (s: Skip) => `${s.serial}\u0000${s.kind}`;

/**
 * The rows for `outcomes[i]` (newest first). The newest poll shows all; an older one the changes since the poll
 * after it in the list (its predecessor in time), or none for the oldest listed. A failed poll skipped nothing
 * (it saw no machines) and is compared with nothing: the next poll that worked is compared with the one before it.
 */
export function skipRows(outcomes: readonly Outcome[], i: number): SkipRows {
  const poll = outcomes[i];
  if (!poll) return { kind: "none" };
  if (i === 0) return { kind: "all", skips: poll.skipped };
  if (poll.error !== null) return { kind: "none" };
  const before = outcomes.slice(i + 1).find((o) => o.error === null);
  if (!before) return { kind: "none" };
  const had = new Map(before.skipped.map((s) => [keyOf(s), s]));
  const has = new Map(poll.skipped.map((s) => [keyOf(s), s]));
  const changes: SkipChange[] = [];
  for (const [key, skip] of has) if (!had.has(key)) changes.push({ change: "new", skip });
  for (const [key, skip] of had) if (!has.has(key)) changes.push({ change: "gone", skip });
  return { kind: "changes", since: before.sequence, changes };
}
