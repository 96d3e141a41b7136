// Polls told by their counts: sabakan polls every minute and a broken machine is skipped poll after poll, so the page
// lists a sample of the newest poll's skips and, for every poll, how many it skipped for each reason and how that
// changed since the poll before (a storm's thousand skips are one line, and a rack held back shows as its change).
import type { KindCount, Outcome } from "./model.js";

/** A reason's skips in a poll, and the change since the poll before (null: nothing to compare with). */
export interface KindChange {
  readonly kind: string;
  readonly machines: number;
  readonly change: number | null;
}

/** What a poll's counts line shows: each reason it skipped for (or that the poll before did), and which poll it is compared with. */
export interface KindChanges {
  readonly since: string | null;
  readonly kinds: readonly KindChange[];
}

/**
 * The counts by reason of `outcomes[i]` (newest first), each with its change since the poll before it that worked. A
 * failed poll skipped nothing (it saw no machines) and is compared with nothing; neither is the oldest listed. A reason
 * the poll before had and this one has not is listed with 0.
 */
export function kindChanges(outcomes: readonly Outcome[], i: number): KindChanges {
  const poll = outcomes[i];
  if (!poll) return { since: null, kinds: [] };
  const before = poll.error === null ? outcomes.slice(i + 1).find((o) => o.error === null) : undefined;
  if (!before) return { since: null, kinds: poll.skippedByKind.map(({ kind, machines }) => ({ kind, machines, change: null })) };
  const had = new Map(before.skippedByKind.map((k: KindCount) => [k.kind, k.machines]));
  const kinds: KindChange[] = poll.skippedByKind.map(({ kind, machines }) => ({ kind, machines, change: machines - (had.get(kind) ?? 0) }));
  for (const { kind, machines } of before.skippedByKind)
    if (!poll.skippedByKind.some((k) => k.kind === kind)) kinds.push({ kind, machines: 0, change: -machines });
  return { since: before.sequence, kinds };
}

/** A counts line: "queue_limit 998 (+3), rack_limit 0 (-2)"; a change of 0, or none to compare with, is left out. */
export function kindsLine(changes: KindChanges): string {
  return changes.kinds
    .map(({ kind, machines, change }) => `${kind.toLowerCase()} ${machines.toLocaleString("en-US")}${change ? ` (${change > 0 ? "+" : ""}${change})` : ""}`)
    .join(", ");
}
