import type { IntakeShortCircuit, SkippedMachine } from "./auto-repair-intake.js";
import type { RepairEntry } from "../queue/repair-entry.js";
import type { SkippedCounts } from "./skipped-bound.js";

/** What started a poll: the schedule, an operator (runAutoRepair), or a state change made through kintsugi. */
export type PollTrigger = "schedule" | "operator" | "event";

/** The recorded outcome of one sabakan poll: what was seen, enqueued and skipped, or why nothing was. */
export interface AutoRepairOutcome {
  readonly sequence: number;
  readonly time: number;
  readonly trigger: PollTrigger;
  readonly machinesSeen: number;
  /** The entries as created by this poll. */
  readonly enqueued: readonly RepairEntry[];
  /** The skipped machines, at most 1,000 of them (LISTED_SKIPS and boundSkipped in skipped-bound.ts say why): `skippedCounts` counts them all. */
  readonly skipped: readonly SkippedMachine[];
  /** How many machines the poll skipped, in all and per kind; absent in outcomes stored before the list was bounded, whose list is whole (read them with skippedCountsOf). */
  readonly skippedCounts?: SkippedCounts | undefined;
  readonly shortCircuit: IntakeShortCircuit | null;
  /** Why the poll failed (nothing was enqueued), or null. */
  readonly error: string | null;
}

/** How many outcomes are kept: older ones are dropped as new ones are recorded. */
export const KEPT_OUTCOMES = 1000;
