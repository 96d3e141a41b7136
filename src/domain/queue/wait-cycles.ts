import type { WaitingFor } from "./repair-wait.js";

/**
 * The cycles among entries that wait for each other: each wait that names an entry (`entryIndex`) is an edge from
 * the waiting entry to the named one, and a cycle is entries each waiting for the next, back to the first (two
 * control planes that are both not Ready, each entry held by the other's readiness). Each cycle once, starting at
 * its lowest index, cycles sorted by that index. Linear in the number of waits.
 */
export function waitCycles(waits: ReadonlyMap<number, Pick<WaitingFor, "entryIndex">>): number[][] {
  const cycles: number[][] = [];
  // 1: on the path being followed; 2: done (in a cycle found already, or leading to none).
  const state = new Map<number, 1 | 2>();
  // Each cycle comes out the same whichever entry of it is met first, and the cycles are sorted at the end.
  for (const start of waits.keys()) {
    const path: number[] = [];
    let at: number | undefined = start;
    while (at !== undefined && !state.has(at) && waits.has(at)) {
      state.set(at, 1);
      path.push(at);
      at = waits.get(at)?.entryIndex;
    }
    if (at !== undefined && state.get(at) === 1) {
      const cycle = path.slice(path.indexOf(at));
      const low = cycle.indexOf(Math.min(...cycle));
      cycles.push([...cycle.slice(low), ...cycle.slice(0, low)]);
    }
    for (const index of path) state.set(index, 2);
  }
  return cycles.sort((a, b) => a[0]! - b[0]!);
}

function describeCycle(cycle: readonly number[]): string {
  const names = cycle.length === 2 ? `${cycle[0]} and ${cycle[1]}` : `${cycle.slice(0, -1).join(", ")} and ${cycle.at(-1)}`;
  const none = cycle.length === 2 ? "neither" : "none of them";
  return `entries ${names} wait for each other: ${none} moves until one of them recovers, is repaired by hand or is deleted`;
}

/**
 * The waits with every entry of a wait cycle saying so: its message ends with the entries of its cycle (each wait
 * still names, in `entryIndex`, the entry it waits for). Waits in no cycle are returned unchanged (`waits` itself
 * when there is no cycle, the common case).
 */
export function withWaitCycles(waits: ReadonlyMap<number, WaitingFor>): ReadonlyMap<number, WaitingFor> {
  const cycles = waitCycles(waits);
  if (cycles.length === 0) return waits;
  const marked = new Map(waits);
  for (const cycle of cycles) {
    const why = describeCycle(cycle);
    for (const index of cycle) {
      const wait = waits.get(index) as WaitingFor;
      marked.set(index, { ...wait, message: `${wait.message}; ${why}` });
    }
  }
  return marked;
}
