import type { RepairEntry } from "./repair-entry.js";

/** The owner value kintsugi writes into its cordon annotation for an entry. */
export function cordonOwner(index: number): string {
  return `repair-entry-${index}`;
}

/** Whether an entry may hold its node cordoned: processing, and not waiting out a drain back-off. */
function mayHoldCordon(entry: RepairEntry | undefined): boolean {
  if (!entry || entry.status !== "processing") return false;
  return !(entry.stepStatus === "waiting" && entry.drainBackoffExpire !== null);
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
