import { drainingTimeOf, stepsNeededOf, type RepairTimelinePoint } from "./repair-timeline.js";

/**
 * What one ended repair's history contributes to the statistics. It never changes once the repair has ended: an
 * ended entry is never retried, and the records that may follow its end (a delete request, a back-off reset, the
 * dequeue) keep its status and step, and draining stops counting at its end. So it is computed once and kept.
 */
export interface RepairHistorySummary {
  /** The time it spent draining (ms), up to its end. */
  readonly drainingMs: number;
  /** How many steps it took (see stepsNeededOf). */
  readonly stepsNeeded: number;
  /** The step of its last record; null when its history has no record. */
  readonly finalStep: number | null;
}

/** The summary of one repair's `history` (oldest first) that ended at `finishedAt` (ms). */
export function historySummaryOf(history: readonly RepairTimelinePoint[], finishedAt: number): RepairHistorySummary {
  return {
    drainingMs: drainingTimeOf(history, finishedAt),
    stepsNeeded: stepsNeededOf(history),
    finalStep: history.length === 0 ? null : history[history.length - 1]!.step,
  };
}
