import { replayAutoRepair, type ReplayLimits, type ReplayReport } from "./auto-repair-replay.js";
import type { FinishedRepair } from "../queue/finished-repair.js";
import { recordedPlaces, type PollRecord } from "./poll-record.js";
import type { RemediationRecord } from "./remediation-record.js";
import type { RemediationReplayConfig } from "./remediation-replay.js";
import { pacingSeedOf } from "./replay-repair-schedule.js";
import { boundReplay, REPLAY_BOUNDS } from "./replay-request.js";

/**
 * One replay as simulateAutoRepair asks for it, in plain data (it crosses to a worker thread): the records read from
 * `since`, the limits checkReplayRequest returned, the configured checks and repair procedures, and the repairs that
 * ended (pacing's seed).
 */
export interface ReplayJob {
  readonly since: number;
  readonly polls: readonly PollRecord[];
  readonly remediations: readonly RemediationRecord[];
  readonly limits: ReplayLimits;
  readonly config: RemediationReplayConfig;
  readonly finished: readonly FinishedRepair[];
}

/** The replay's answer as the API gives it: the report, cut to REPLAY_BOUNDS.maxDifferingPolls, and whether it was cut. */
export type ReplayJobResult =
  { readonly ok: true; readonly report: ReplayReport & { readonly truncated: boolean } } | { readonly ok: false; readonly message: string };

/**
 * Runs a replay job: bounds the records (boundReplay), seeds the runner's pacing with the repairs that finished
 * before `since` (each machine in the rack the records last place it in), replays, and keeps the first
 * REPLAY_BOUNDS.maxDifferingPolls differing polls. `truncated` says that records, the schedule or the polls were cut.
 */
export function runReplayJob(job: ReplayJob): ReplayJobResult {
  const bounded = boundReplay({ polls: job.polls, remediations: job.remediations });
  if (!bounded.ok) return bounded;
  const racks = new Map<string, number>();
  for (const record of bounded.records.polls) for (const [address, place] of recordedPlaces(record)) racks.set(address, place.rack);
  const runner = job.limits.runner && { ...job.limits.runner, seed: pacingSeedOf(job.finished, job.since, racks) };
  const limits: ReplayLimits = { ...job.limits, ...(runner && { runner }) };
  const report = replayAutoRepair(bounded.records, limits, job.config);
  return {
    ok: true,
    report: {
      ...report,
      polls: report.polls.slice(0, REPLAY_BOUNDS.maxDifferingPolls),
      truncated: bounded.truncated || report.scheduleExhausted || report.polls.length > REPLAY_BOUNDS.maxDifferingPolls,
    },
  };
}
