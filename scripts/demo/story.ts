import type { ClusterGeneration } from "../../src/domain/cluster/generation-record.js";
import type { ProofSignal } from "../../src/domain/proof/repair-evidence.js";
import type { RepairEntry } from "../../src/domain/queue/repair-entry.js";
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

/** What each proof-of-repair signal means, as the story says it. */
const SIGNAL_WORDS: Readonly<Record<ProofSignal, string>> = {
  sabakan_healthy: "sabakan says HEALTHY again",
  node_ready: "the node is Ready again",
  boot_id_changed: "the node booted anew",
};

/**
 * How a success was proven (`success_requires`): the signals its evidence holds besides the health check, or that
 * nothing was repaired (the machine was healthy before any repair command ran); "" for an entry without proof.
 */
export function proofWords(entry: RepairEntry): string {
  const evidence = entry.evidence;
  if (!evidence) return "";
  if (evidence.provenAt === null) return "; nothing was repaired: it was healthy before any repair command ran";
  const signals = (Object.keys(SIGNAL_WORDS) as ProofSignal[]).filter((s) => evidence.since[s] !== undefined);
  return signals.length === 0 ? "; repair proven" : `; repair proven: ${signals.map((s) => `${SIGNAL_WORDS[s]} (${s})`).join(", ")}`;
}

/**
 * What kintsugi did to its entries, as the story tells it: every new entry and every transition, with its reason,
 * and for a success how it was proven.
 */
export function entryLines(changes: readonly RepairChange[]): string[] {
  return changes
    .filter(({ record }) => record.kind === "created" || record.kind === "transition")
    .map(
      ({ entry, record }) =>
        `#${entry.index} ${entry.address}: ${record.reason}${entry.status === "succeeded" && record.kind === "transition" ? proofWords(entry) : ""}`,
    );
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
