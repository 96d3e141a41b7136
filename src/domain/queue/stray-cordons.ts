import { isBackedOff } from "./drain-backoff.js";
import type { RepairEntry } from "./repair-entry.js";

/** The owner value kintsugi writes into its cordon annotation for an entry. */
export function cordonOwner(index: number): string {
  return `repair-entry-${index}`;
}

/**
 * Whether an entry may hold its node cordoned: processing, not in a drain back-off (expired or not), and not a
 * control plane that gave up the one-control-plane turn (see control-plane-turn.ts).
 */
function mayHoldCordon(entry: RepairEntry | undefined, yielded: ReadonlySet<number>): boolean {
  return entry !== undefined && entry.status === "processing" && !isBackedOff(entry) && !yielded.has(entry.index);
}

/**
 * The nodes kintsugi cordoned for an entry that no longer needs it (finished, dequeued, queued, backing off, or a
 * control plane in `yielded`, the last pass's RepairPlan.yielded, so that only the control plane with the turn is
 * cordoned): they are uncordoned on every pass until they are not, so a crash between finishing an entry and
 * uncordoning its node never leaves the node unschedulable. Returns [node name, owner] pairs.
 */
export function strayCordons(
  nodes: ReadonlyArray<{ readonly name: string; readonly annotations: Readonly<Record<string, string>> }>,
  entries: readonly RepairEntry[],
  annotation: string,
  yielded: ReadonlySet<number> = new Set(),
): Array<[string, string]> {
  const byOwner = new Map(entries.map((e) => [cordonOwner(e.index), e]));
  const stray: Array<[string, string]> = [];
  for (const node of nodes) {
    const owner = node.annotations[annotation];
    if (owner === undefined || !owner.startsWith("repair-entry-")) continue;
    if (!mayHoldCordon(byOwner.get(owner), yielded)) stray.push([node.name, owner]);
  }
  return stray;
}
