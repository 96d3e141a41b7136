import type { ClusterGeneration } from "../../src/domain/cluster/generation-record.js";
import type { RepairChange } from "../../src/store/store-port.js";

/** Who a line of the story is about. */
export type Teller = "kintsugi" | "chaos" | "power" | "sabakan" | "operator" | "admin" | "status";

/** The demo's story: one line per event, each stamped with the scenario's clock and who acted. */
export interface Story {
  tell(teller: Teller, text: string): void;
  /** The scenario's clock, in seconds since {@link Story.begin} (the wall clock divided by the scale); 0 before. */
  now(): number;
  /** Starts the scenario's clock. */
  begin(): void;
}

/** `mm:ss`, or `h:mm:ss` from the first hour on. */
export function formatClock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const two = (n: number) => String(n).padStart(2, "0");
  const hours = Math.floor(s / 3600);
  const rest = `${two(Math.floor((s % 3600) / 60))}:${two(s % 60)}`;
  return hours > 0 ? `${hours}:${rest}` : rest;
}

/** A story written line by line to `write` (stdout): `12:34 [chaos] r0m4 (10.69.0.4) broke: UNHEALTHY`. */
export function createStory(write: (line: string) => void, wallNow: () => number, scale: number): Story {
  let start: number | null = null;
  const now = () => (start === null ? 0 : (wallNow() - start) / 1000 / scale);
  return {
    now,
    begin: () => void (start ??= wallNow()),
    tell: (teller, text) => write(`${formatClock(now())} [${teller}] ${text}`),
  };
}

/** What kintsugi did to its entries, as the story tells it: every new entry and every transition, with its reason. */
export function entryLines(changes: readonly RepairChange[]): string[] {
  return changes
    .filter(({ record }) => record.kind === "created" || record.kind === "transition")
    .map(({ entry, record }) => `#${entry.index} ${entry.address}: ${record.reason}`);
}

/**
 * A cluster generation record as one line: the first change and how many more (the first generation lists every
 * node it picks, too many for one line), or the failure, or that generation works again.
 */
export function generationLine(g: ClusterGeneration): string {
  if (!g.cluster) return g.error ? `cluster generation failed: ${g.error}` : "cluster generation works again";
  const [first, ...more] = g.changes;
  const rest = more.length === 0 ? "" : ` (+${more.length} more: npx kintsugi cluster history)`;
  return `cluster generation ${g.generation}: ${first ?? "no change"}${rest}`;
}
