import type { ClusterMachine } from "./types.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** The rack term's base: it should exceed the most machines of one role in one rack. */
const MAX_PER_RACK = 100;

/** A machine's remaining lifetime in whole days, truncated toward zero (negative once past its retire date). */
export function lifetimeDays(m: Pick<ClusterMachine, "retireDate">, now: number): number {
  return Math.trunc((m.retireDate - now) / DAY_MS) + 0; // + 0 turns -0 into 0
}

/** The lifetime term: +1 above 250, 500 and 1000 days each; -1 below -250, -500 and -1000 days each (strict). */
export function lifetimeScore(days: number): number {
  let score = 0;
  for (const threshold of [250, 500, 1000]) {
    if (days > threshold) score++;
    if (days < -threshold) score--;
  }
  return score;
}

/** The rack term: (100 - machines of the same group already in the rack) * 10. */
export function rackScore(sameRack: number): number {
  return (MAX_PER_RACK - sameRack) * 10;
}

/**
 * The node-selection score (seed steps 4-5): the rack term plus the lifetime term. `sameRack` counts the nodes of
 * the same group (control planes, or workers of the same role) in the machine's rack. The highest score wins.
 */
export function selectionScore(m: ClusterMachine, sameRack: number, now: number): number {
  return rackScore(sameRack) + lifetimeScore(lifetimeDays(m, now));
}

/** The node-removal score (seed steps 1-3): +1000 if HEALTHY, plus the selection terms. The lowest score goes. */
export function removalScore(m: ClusterMachine, sameRack: number, now: number): number {
  return (m.state === "HEALTHY" ? 1000 : 0) + selectionScore(m, sameRack, now);
}

/** Orders by serial (the deterministic tie-break). */
export const bySerial = (a: { serial: string }, b: { serial: string }): number => (a.serial < b.serial ? -1 : a.serial > b.serial ? 1 : 0);

/** Counts machines per rack. */
export function countByRack(machines: Iterable<ClusterMachine>): Map<number, number> {
  const count = new Map<number, number>();
  for (const m of machines) count.set(m.rack, (count.get(m.rack) ?? 0) + 1);
  return count;
}

/** The machine with the highest selection score among `candidates` (ties: smallest serial), or undefined. */
export function pickHighest(candidates: Iterable<ClusterMachine>, racks: ReadonlyMap<number, number>, now: number): ClusterMachine | undefined {
  let best: ClusterMachine | undefined;
  let bestScore = -Infinity;
  for (const m of candidates) {
    const s = selectionScore(m, racks.get(m.rack) ?? 0, now);
    if (s > bestScore || (s === bestScore && best !== undefined && bySerial(m, best) < 0)) {
      best = m;
      bestScore = s;
    }
  }
  return best;
}

/** The machine with the lowest removal score among `members` (ties: smallest serial), or undefined. */
export function pickLowest(members: Iterable<ClusterMachine>, racks: ReadonlyMap<number, number>, now: number): ClusterMachine | undefined {
  let worst: ClusterMachine | undefined;
  let worstScore = Infinity;
  for (const m of members) {
    const s = removalScore(m, racks.get(m.rack) ?? 0, now);
    if (s < worstScore || (s === worstScore && worst !== undefined && bySerial(m, worst) < 0)) {
      worst = m;
      worstScore = s;
    }
  }
  return worst;
}
