import { isBackedOff } from "./drain-backoff.js";
import type { RepairEntry } from "./repair-entry.js";

/** The owner value kintsugi writes into its cordon annotation for an entry. */
export function cordonOwner(index: number): string {
  return `repair-entry-${index}`;
}

/** Whether an entry may hold its node cordoned: processing, and not in a drain back-off (expired or not). */
function mayHoldCordon(entry: RepairEntry | undefined): boolean {
  return entry !== undefined && entry.status === "processing" && !isBackedOff(entry);
}

/**
 * The nodes kintsugi cordoned for an entry that no longer needs it (finished, dequeued, queued, or backing off):
 * they are uncordoned on every pass until they are not, so a crash between finishing an entry and uncordoning its
 * node never leaves the node unschedulable. Returns [node name, owner] pairs.
 */
export function strayCordons(
  nodes: ReadonlyArray<{ readonly name: string; readonly annotations: Readonly<Record<string, string>> }>,
  entries: readonly RepairEntry[],
  annotation: string,
): Array<[string, string]> {
  const byOwner = new Map(entries.map((e) => [cordonOwner(e.index), e]));
  const stray: Array<[string, string]> = [];
  for (const node of nodes) {
    const owner = node.annotations[annotation];
    if (owner === undefined || !owner.startsWith("repair-entry-")) continue;
    if (!mayHoldCordon(byOwner.get(owner))) stray.push([node.name, owner]);
  }
  return stray;
}
