import type { IntakeInput } from "../intake/auto-repair-intake.js";
import type { ReplayLimits, ReplayRecords, ReplayRunner } from "./auto-repair-replay.js";
import { parseMaxUnhealthy, parseUnhealthyRange } from "../health/health-check-config.js";
import type { PollRecord } from "./poll-record.js";
import type { RemediationRecord } from "./remediation-record.js";
import type { HealthCheckLimit } from "./remediation-replay.js";
import type { PacingDomain } from "../pacing/repair-pacing.js";

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
  /** Health checks whose gate limit one replay may change. */
  maxHealthChecks: 100,
} as const;

/** A replay as asked for: from when, which constraints, and the assumed repair time (null: the default). */
export interface ReplayRequest {
  readonly since: number;
  readonly constraints: { readonly [K in keyof IntakeInput["constraints"]]?: number | null };
  readonly repairSeconds: number | null;
  /** Gate limits for health checks by name: maxUnhealthy (`40%`, `3`) or unhealthyRange (`[1-3]`), not both. */
  readonly healthChecks?: ReadonlyArray<{ readonly name: string; readonly maxUnhealthy?: string | null; readonly unhealthyRange?: string | null }> | null;
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
 * constraint an integer 0-1,000,000, `repairSeconds` an integer 60-2,592,000, at most 100 health checks, each
 * one of `context.checks` (the configured names), named once, with maxUnhealthy or unhealthyRange (not both) as
 * the config spells them, `pacing.maxConcurrentRepairs` an integer 1-10,000 and `pacing.domains` each at most once.
 * With `context.runner` (the runner's limits in force), the limits carry the runner to replay with: the request's
 * pacing over the one in force, `changed` when they differ.
 */
export function checkReplayRequest(
  request: ReplayRequest,
  now: number,
  context: { readonly checks?: readonly string[]; readonly runner?: RunnerInForce } = {},
): { readonly ok: true; readonly limits: ReplayLimits } | { readonly ok: false; readonly message: string } {
  const b = REPLAY_BOUNDS;
  if (!Number.isFinite(request.since) || request.since > now) return { ok: false, message: "since: must not be in the future" };
  if (request.since < now - b.maxRangeMs) return { ok: false, message: "since: must be within the last 31 days" };
  const constraints: { -readonly [K in keyof IntakeInput["constraints"]]?: number } = {};
  for (const key of Object.keys(NAMES) as Array<keyof IntakeInput["constraints"]>) {
    const value = request.constraints[key];
    if (value === undefined || value === null) continue;
    if (!Number.isSafeInteger(value) || value < 0 || value > b.maxConstraint)
      return { ok: false, message: `constraints.${NAMES[key]}: must be an integer from 0 to ${b.maxConstraint}, got ${value}` };
    constraints[key] = value;
  }
  const repairSeconds = request.repairSeconds ?? b.defaultRepairSeconds;
  if (!Number.isSafeInteger(repairSeconds) || repairSeconds < b.minRepairSeconds || repairSeconds > b.maxRepairSeconds) {
    return { ok: false, message: `repairSeconds: must be an integer from ${b.minRepairSeconds} to ${b.maxRepairSeconds}, got ${repairSeconds}` };
  }
  const healthChecks = checkHealthCheckLimits(request.healthChecks ?? [], context.checks ?? []);
  if (!healthChecks.ok) return healthChecks;
  const runner = checkRunner(request.pacing ?? {}, context.runner);
  if (!runner.ok) return runner;
  return {
    ok: true,
    limits: {
      constraints,
      repairSeconds,
      ...(healthChecks.limits.size > 0 && { healthChecks: healthChecks.limits }),
      ...(runner.runner && { runner: runner.runner, maxScheduleSteps: REPLAY_BOUNDS.maxScheduleSteps }),
    },
  };
}

/** The runner to replay with (none without the one in force), or a message naming the pacing field that is wrong. */
function checkRunner(
  pacing: NonNullable<ReplayRequest["pacing"]>,
  inForce: RunnerInForce | undefined,
): { readonly ok: true; readonly runner: ReplayRunner | null } | { readonly ok: false; readonly message: string } {
  const b = REPLAY_BOUNDS;
  const max = pacing.maxConcurrentRepairs;
  if (max !== undefined && max !== null && (!Number.isSafeInteger(max) || max < 1 || max > b.maxConcurrentRepairs)) {
    return { ok: false, message: `pacing.maxConcurrentRepairs: must be an integer from 1 to ${b.maxConcurrentRepairs}, got ${max}` };
  }
  const domains = pacing.domains;
  if (domains && new Set(domains).size !== domains.length) return { ok: false, message: "pacing.domains: each domain may be listed once" };
  if (!inForce) return { ok: true, runner: null };
  const maxConcurrentRepairs = max ?? inForce.maxConcurrentRepairs;
  const pacingDomains = domains ?? inForce.pacingDomains;
  const sameDomains = pacingDomains.length === inForce.pacingDomains.length && pacingDomains.every((d) => inForce.pacingDomains.includes(d));
  return { ok: true, runner: { maxConcurrentRepairs, pacingDomains, changed: maxConcurrentRepairs !== inForce.maxConcurrentRepairs || !sameDomains } };
}

/** The health checks' gate limits of a request, or a message naming the one that is wrong. */
function checkHealthCheckLimits(
  requested: NonNullable<ReplayRequest["healthChecks"]>,
  checks: readonly string[],
): { readonly ok: true; readonly limits: Map<string, HealthCheckLimit> } | { readonly ok: false; readonly message: string } {
  if (requested.length > REPLAY_BOUNDS.maxHealthChecks)
    return { ok: false, message: `healthChecks: at most ${REPLAY_BOUNDS.maxHealthChecks}, got ${requested.length}` };
  const limits = new Map<string, HealthCheckLimit>();
  const configured = new Set(checks);
  for (const [i, { name, maxUnhealthy, unhealthyRange }] of requested.entries()) {
    const at = `healthChecks[${i}]`;
    if (!configured.has(name))
      return {
        ok: false,
        message: `${at}.name: no health check named ${JSON.stringify(name.slice(0, 64))} is configured${checks.length > 0 ? ` (configured: ${checks.join(", ")})` : ""}`,
      };
    if (limits.has(name)) return { ok: false, message: `${at}.name: ${name} is given twice` };
    const max = maxUnhealthy ?? null;
    const range = unhealthyRange ?? null;
    if ((max === null) === (range === null)) return { ok: false, message: `${at}: give maxUnhealthy or unhealthyRange for ${name}, one of them` };
    if (max !== null) {
      const parsed = max.length <= 16 ? parseMaxUnhealthy(max) : null;
      if (!parsed)
        return { ok: false, message: `${at}.maxUnhealthy: a whole number or a percentage 0-100% (e.g. 3 or 40%), got ${JSON.stringify(max.slice(0, 64))}` };
      limits.set(name, { maxUnhealthy: parsed });
    } else if (range !== null) {
      const parsed = range.length <= 32 ? parseUnhealthyRange(range) : null;
      if (!parsed) return { ok: false, message: `${at}.unhealthyRange: [min-max] with min <= max (e.g. [1-3]), got ${JSON.stringify(range.slice(0, 64))}` };
      limits.set(name, { unhealthyRange: parsed });
    }
  }
  return { ok: true, limits };
}

/**
 * The records a replay may weigh, oldest first: at most REPLAY_BOUNDS.maxPolls polls and remediations together
 * (the oldest, `truncated` when more were read), or why not: more machines and unhealthy targets summed over them
 * than REPLAY_BOUNDS.maxMachinePolls (the decisions are linear in them, so this bounds the CPU a replay takes).
 */
export function boundReplay(
  records: ReplayRecords,
): { readonly ok: true; readonly records: Required<ReplayRecords>; readonly truncated: boolean } | { readonly ok: false; readonly message: string } {
  const all = records.remediations ?? [];
  let p = 0;
  let r = 0;
  while (p + r < REPLAY_BOUNDS.maxPolls && (p < records.polls.length || r < all.length)) {
    const poll = records.polls[p];
    const remediation = all[r];
    if (poll !== undefined && (remediation === undefined || poll.time <= remediation.time)) p += 1;
    else r += 1;
  }
  const polls: readonly PollRecord[] = records.polls.slice(0, p);
  const remediations: readonly RemediationRecord[] = all.slice(0, r);
  const machines = polls.reduce((n, x) => n + x.machines.serial.length, 0) + remediations.reduce((n, x) => n + x.unhealthy.node.length, 0);
  if (machines > REPLAY_BOUNDS.maxMachinePolls) {
    return {
      ok: false,
      message: `since: the recorded polls and remediations from then hold ${machines} machines in all, more than ${REPLAY_BOUNDS.maxMachinePolls} a replay may weigh; choose a later since`,
    };
  }
  return { ok: true, records: { polls, remediations }, truncated: records.polls.length + all.length > p + r };
}
