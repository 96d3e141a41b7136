import type { AutoRepairOutcome } from "../../src/domain/intake/auto-repair-outcome.js";
import type { MirroredEntry } from "./queue-mirror.js";

/** What kintsugi holds or skips, by what it is about: `rack N`, `machine SERIAL`, `cap`, or `error`. */
export type Holds = ReadonlyMap<string, Hold>;

/** One thing kintsugi holds: what the story said about it, to tell a change from a repeat. */
export interface Hold {
  readonly reason: string;
  readonly count: number;
}

/** What the narration needs to know besides the outcome. */
export interface HoldNarrationContext {
  /** maximum-unhealthy-machines-per-rack. */
  readonly rackLimit: number;
  /** How often the demo's operator deletes finished entries, in scenario seconds. */
  readonly cleanupEverySeconds: number;
  /** The rack of a machine, by serial. */
  readonly rackOf: (serial: string) => number | undefined;
  /** kintsugi's entries for an address (see QueueMirror). */
  readonly entriesOf: (address: string) => readonly MirroredEntry[];
}

export const RECENTLY_REPAIRED = "recently repaired";
const machines = (n: number) => `${n} machine${n === 1 ? "" : "s"}`;

/**
 * The holds one poll outcome shows: a rack held back, a machine skipped, the cap, a failed poll. A machine skipped
 * as "recently repaired" while its repair is under way is not held: it is being repaired.
 */
function holdsOf(outcome: AutoRepairOutcome, previous: Holds, context: HoldNarrationContext): Map<string, Hold> {
  const holds = new Map<string, Hold>();
  if (outcome.error !== null) {
    // A failed poll tells nothing about the machines: what was held stays held until a poll says otherwise.
    for (const [key, hold] of previous) if (key !== "error") holds.set(key, hold);
    holds.set("error", { reason: outcome.error, count: 0 });
    return holds;
  }
  for (const s of outcome.skipped) {
    if (s.kind === "rack_limit") {
      const key = `rack ${s.rack ?? "?"}`;
      holds.set(key, { reason: s.reason, count: (holds.get(key)?.count ?? 0) + 1 });
    } else if (s.kind === "recently_repaired" && s.address !== null) {
      const entries = context.entriesOf(s.address);
      const done = entries.filter((e) => e.finished);
      if (entries.length > 0 && done.length === entries.length) {
        const which = done.map((e) => `#${e.index}`).join(", ");
        holds.set(`machine ${s.serial}`, { reason: `${s.address}, ${s.state}: ${RECENTLY_REPAIRED}, finished entry ${which} still in the queue`, count: 1 });
      }
    } else if (s.kind !== "queue_limit") {
      holds.set(`machine ${s.serial}`, { reason: `${s.address ?? "no address"}, ${s.state}: ${s.reason}`, count: 1 });
    }
  }
  const cap = outcome.shortCircuit;
  if (cap)
    holds.set("cap", {
      reason: `${cap.existingEntries} entries in the queue + ${cap.candidates} unhealthy ${cap.candidates === 1 ? "machine" : "machines"} > maximum-repair-queue-entries ${cap.limit}`,
      count: cap.candidates,
    });
  return holds;
}

function started(key: string, hold: Hold, context: HoldNarrationContext): string {
  if (key === "error") return `cannot poll sabakan: ${hold.reason}; it tries again at the next poll`;
  if (key === "cap") return `enqueues nothing this poll: ${hold.reason} (all or nothing, as CKE)`;
  if (key.startsWith("rack ")) {
    return (
      `holds back ${key} (${machines(hold.count)}): ${hold.reason}. With at most ${context.rackLimit} unhealthy per rack ` +
      `(maximum-unhealthy-machines-per-rack) it repairs none of them until the rack recovers`
    );
  }
  const serial = key.slice("machine ".length);
  if (hold.reason.includes(`: ${RECENTLY_REPAIRED},`)) {
    return (
      `leaves ${serial} alone (${hold.reason}): it repairs a machine again only once its entry is deleted ` +
      `(here the operator deletes succeeded entries every ${context.cleanupEverySeconds} s, a failed one once they have read why it failed), so a flapping machine is not repaired in a loop`
    );
  }
  return `skips ${serial} (${hold.reason})`;
}

function changed(key: string, hold: Hold, context: HoldNarrationContext): string {
  if (key.startsWith("rack ")) return `still holds back ${key} (${machines(hold.count)}): ${hold.reason}`;
  return key === "cap" ? `still enqueues nothing: ${hold.reason}` : `now ${started(key, hold, context)}`;
}

function ended(key: string, hold: Hold, outcome: AutoRepairOutcome, holds: ReadonlyMap<string, Hold>, context: HoldNarrationContext): string {
  if (key === "error") return "polls sabakan again";
  if (key === "cap") return "enqueues again: the queue has room";
  if (key.startsWith("rack ")) {
    const rack = Number(key.slice("rack ".length));
    const seen = [...outcome.enqueued.map((e) => e.serial ?? ""), ...outcome.skipped.map((s) => s.serial)].filter((s) => context.rackOf(s) === rack).length;
    const why = seen === 0 ? "none of its machines is unhealthy any more" : `${seen} unhealthy, within the limit of ${context.rackLimit}: repaired as usual`;
    return `no longer holds back ${key}: ${why}`;
  }
  const serial = key.slice("machine ".length);
  const was = hold.reason.slice(hold.reason.indexOf(": ") + 2).replace(/, finished entry .*$/, "");
  const entry = outcome.enqueued.find((e) => e.serial === serial);
  const rack = context.rackOf(serial);
  const now = entry
    ? `enqueued as #${entry.index}`
    : rack !== undefined && holds.has(`rack ${rack}`)
      ? `held back with its rack instead`
      : "sabakan no longer reports it unhealthy";
  return `no longer skips ${serial} (was: ${was}): ${now}`;
}

/**
 * The story of one poll outcome: what kintsugi starts holding back or skipping (and why), what changes, and what it
 * no longer holds (and what became of it), compared with the holds after the previous outcome. A poll that holds
 * what the previous one held says nothing, so the story is told once per change, not once per poll.
 */
export function narrateHolds(
  previous: Holds,
  outcome: AutoRepairOutcome,
  context: HoldNarrationContext,
): { readonly holds: Holds; readonly lines: readonly string[] } {
  const holds = holdsOf(outcome, previous, context);
  const lines: string[] = [];
  for (const [key, hold] of previous) if (!holds.has(key)) lines.push(ended(key, hold, outcome, holds, context));
  for (const [key, hold] of holds) {
    const before = previous.get(key);
    if (!before) lines.push(started(key, hold, context));
    else if (before.reason !== hold.reason || before.count !== hold.count) lines.push(changed(key, hold, context));
  }
  return { holds, lines };
}
