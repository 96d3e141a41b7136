import type { IntakeInput } from "./auto-repair-intake.js";
import type { ReplayLimits, ReplayRunner } from "./auto-repair-replay.js";
import type { PollRecord } from "./poll-record.js";
import type { PacingDomain } from "./repair-pacing.js";

/** What one replay may make kintsugi spend (simulateAutoRepair's docstring states them). */
export const REPLAY_BOUNDS = {
  /** The furthest back `since` may reach. */
  maxRangeMs: 31 * 86_400_000,
  maxPolls: 50_000,
  /** Machines summed over the replayed polls: the CPU bound (decideIntake is linear in the answer). */
  maxMachinePolls: 5_000_000,
  maxDifferingPolls: 1_000,
  minRepairSeconds: 60,
  maxRepairSeconds: 30 * 86_400,
  defaultRepairSeconds: 3_600,
  maxConstraint: 1_000_000,
  maxConcurrentRepairs: 10_000,
  /** Waiting repairs the replay's schedule may weigh in all (see advanceSchedule): the CPU its runner model takes. */
  maxScheduleSteps: 20_000_000,
} as const;

/** A replay as asked for: from when, which constraints, and the assumed repair time (null: the default). */
export interface ReplayRequest {
  readonly since: number;
  readonly constraints: { readonly [K in keyof IntakeInput["constraints"]]?: number | null };
  readonly repairSeconds: number | null;
  /** How the replay's runner starts repairs instead of the one in force; a field absent or null keeps the config's. */
  readonly pacing?: { readonly maxConcurrentRepairs?: number | null; readonly domains?: readonly PacingDomain[] | null } | null;
}

/** The runner's limits in force (the config's `repair.max_concurrent_repairs` and `repair.pacing.domains`). */
export type RunnerInForce = Pick<ReplayRunner, "maxConcurrentRepairs" | "pacingDomains">;

/** The constraint names as the API spells them, for messages. */
const NAMES: Record<keyof IntakeInput["constraints"], string> = {
  maximumRepairQueueEntries: "maximumRepairQueueEntries",
  waitSecondsToRepairRebooting: "waitSecondsToRepairRebooting",
  maximumUnhealthyMachinesPerRack: "maximumUnhealthyMachinesPerRack",
};

/**
 * Checks a replay request at `now` against REPLAY_BOUNDS and returns the limits to replay with, or a message
 * naming the argument that is out of range: `since` within the last 31 days and not in the future, each
 * constraint an integer 0-1,000,000, `repairSeconds` an integer 60-2,592,000, `pacing.maxConcurrentRepairs` an
 * integer 1-10,000 and `pacing.domains` each at most once. With `inForce` (the runner's limits), the limits carry
 * the runner to replay with: the request's pacing over the one in force, `changed` when they differ.
 */
export function checkReplayRequest(request: ReplayRequest, now: number, inForce?: RunnerInForce): { readonly ok: true; readonly limits: ReplayLimits } | { readonly ok: false; readonly message: string } {
  const b = REPLAY_BOUNDS;
  if (!Number.isFinite(request.since) || request.since > now) return { ok: false, message: "since: must not be in the future" };
  if (request.since < now - b.maxRangeMs) return { ok: false, message: "since: must be within the last 31 days" };
  const constraints: { -readonly [K in keyof IntakeInput["constraints"]]?: number } = {};
  for (const key of Object.keys(NAMES) as Array<keyof IntakeInput["constraints"]>) {
    const value = request.constraints[key];
    if (value === undefined || value === null) continue;
    if (!Number.isSafeInteger(value) || value < 0 || value > b.maxConstraint) return { ok: false, message: `constraints.${NAMES[key]}: must be an integer from 0 to ${b.maxConstraint}, got ${value}` };
    constraints[key] = value;
  }
  const repairSeconds = request.repairSeconds ?? b.defaultRepairSeconds;
  if (!Number.isSafeInteger(repairSeconds) || repairSeconds < b.minRepairSeconds || repairSeconds > b.maxRepairSeconds) {
    return { ok: false, message: `repairSeconds: must be an integer from ${b.minRepairSeconds} to ${b.maxRepairSeconds}, got ${repairSeconds}` };
  }
  const pacing = request.pacing ?? {};
  const max = pacing.maxConcurrentRepairs;
  if (max !== undefined && max !== null && (!Number.isSafeInteger(max) || max < 1 || max > b.maxConcurrentRepairs)) {
    return { ok: false, message: `pacing.maxConcurrentRepairs: must be an integer from 1 to ${b.maxConcurrentRepairs}, got ${max}` };
  }
  const domains = pacing.domains;
  if (domains && new Set(domains).size !== domains.length) return { ok: false, message: "pacing.domains: each domain may be listed once" };
  if (!inForce) return { ok: true, limits: { constraints, repairSeconds } };
  const maxConcurrentRepairs = max ?? inForce.maxConcurrentRepairs;
  const pacingDomains = domains ?? inForce.pacingDomains;
  const sameDomains = pacingDomains.length === inForce.pacingDomains.length && pacingDomains.every((d) => inForce.pacingDomains.includes(d));
  const changed = maxConcurrentRepairs !== inForce.maxConcurrentRepairs || !sameDomains;
  return { ok: true, limits: { constraints, repairSeconds, runner: { maxConcurrentRepairs, pacingDomains, changed }, maxScheduleSteps: b.maxScheduleSteps } };
}

/**
 * The records a replay may weigh, oldest first: at most REPLAY_BOUNDS.maxPolls of them (`truncated` when more were
 * read), or why not: more machines summed over them than REPLAY_BOUNDS.maxMachinePolls (decideIntake is linear in
 * the answer, so this bounds the CPU a replay takes).
 */
export function boundReplay(records: readonly PollRecord[]): { readonly ok: true; readonly records: readonly PollRecord[]; readonly truncated: boolean } | { readonly ok: false; readonly message: string } {
  const kept = records.slice(0, REPLAY_BOUNDS.maxPolls);
  const machines = kept.reduce((n, r) => n + r.machines.serial.length, 0);
  if (machines > REPLAY_BOUNDS.maxMachinePolls) {
    return { ok: false, message: `since: the recorded polls from then hold ${machines} machines in all, more than ${REPLAY_BOUNDS.maxMachinePolls} a replay may weigh; choose a later since` };
  }
  return { ok: true, records: kept, truncated: records.length > kept.length };
}
