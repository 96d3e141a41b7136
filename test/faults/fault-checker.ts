import type { CommandRun } from "./command-log.js";
import { attemptNotes, isCommandOutcome, runnerRecords, type EntryView } from "./run-history.js";

/** A replica's log saying "this replica is now the leader", at its time. */
export interface LeadershipEvent {
  readonly replica: string;
  readonly time: number;
}

/** One answer of a replica's GET /health. */
export interface HealthSample {
  readonly replica: string;
  readonly time: number;
  readonly code: number;
  readonly leader: boolean;
  readonly leaderName: string | null;
}

/** A span during which no replica could reach etcd (etcd paused or cut off), from the fault to its healing. */
export interface OutageWindow {
  readonly from: number;
  readonly to: number;
}

/**
 * A fault after which etcd kept its quorum, the span over which a leader must keep starting commands (a fault of
 * the leader: only its moment; an etcd member cut off: as long as it is), and when leaders started commands after it.
 */
export interface Recovery {
  readonly what: string;
  readonly from: number;
  readonly to: number;
  /** When a leader started a command after `from` (after a fault of the leader, only those of a term begun since). */
  readonly starts: readonly number[];
  /** How soon after `from` a leader must start a command, and how far apart at most until `to`. */
  readonly boundMs: number;
  /** When replicas became leader after `from`; a stretch in which one did may last `electedBoundMs` instead. */
  readonly elections: readonly number[];
  /** The bound of a stretch in which a new leader took over: it waits out the commands its predecessor started. */
  readonly electedBoundMs: number;
}

/** Everything a run observed: the command log, the stored histories, who became leader when, /health in outages. */
export interface RunObservations {
  readonly runs: readonly CommandRun[];
  readonly entries: readonly EntryView[];
  readonly leadership: readonly LeadershipEvent[];
  readonly health: readonly HealthSample[];
  readonly outages: readonly OutageWindow[];
  /** How long after an outage starts every replica must have noticed it (its lease TTL, etcd's timeout, slack). */
  readonly outageGraceMs: number;
  /** Lines of the command log that could not be read once every command had ended. */
  readonly unreadableLines: number;
  /** Each fault that left etcd its quorum (every kind but the etcd outages), and when a leader acted after it. */
  readonly recoveries: readonly Recovery[];
}

export type CheckName =
  "command-log" | "step-twice" | "overlap" | "deposed-write" | "unfinished-entry" | "unexplained-interruption" | "health-in-outage" | "liveness";

export const CHECKS: readonly CheckName[] = [
  "command-log",
  "step-twice",
  "overlap",
  "deposed-write",
  "unfinished-entry",
  "unexplained-interruption",
  "health-in-outage",
  "liveness",
];

export interface Violation {
  readonly check: CheckName;
  readonly message: string;
}

/**
 * The checker's verdict; how many of the runner's records it could attribute to a replica; how many /health answers
 * fell in outages past the grace (what health-in-outage judged).
 */
export interface CheckResult {
  readonly violations: Violation[];
  readonly attributed: number;
  readonly unattributed: number;
  readonly outageAnswers: number;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

const iso = (ms: number) => new Date(ms).toISOString();
const named = (r: CommandRun) =>
  `${r.replica}'s step ${r.step} of entry ${r.entry} (${r.operationId}, ${iso(r.start)}..${iso(r.lastSeen)}${r.ended ? "" : ", killed"})`;

/** No step of an entry ran its command twice (by any replica, any attempt). */
export function stepsRunTwice(runs: readonly CommandRun[]): Violation[] {
  const byStep = groupBy(runs, (r) => `${r.entry}/${r.step}`);
  return [...byStep.values()]
    .filter((rs) => rs.length > 1)
    .map((rs) => ({ check: "step-twice", message: `step ${rs[0]?.step} of entry ${rs[0]?.entry} ran ${rs.length} times: ${rs.map(named).join("; ")}` }));
}

/** No two commands on one machine at once: each command spans [start, its end or last tick]. */
export function overlaps(runs: readonly CommandRun[]): Violation[] {
  const violations: Violation[] = [];
  for (const [address, rs] of groupBy(runs, (r) => r.address)) {
    const sorted = [...rs].sort((a, b) => a.start - b.start);
    sorted.forEach((a, i) => {
      for (const b of sorted.slice(i + 1)) {
        if (b.start < a.lastSeen) violations.push({ check: "overlap", message: `${address}: ${named(b)} started while ${named(a)} ran` });
      }
    });
  }
  return violations;
}

/**
 * No write by a deposed leader, two ways. A runner record of step s written by a replica after another replica's
 * command of a later step of that entry began; and any runner record or command start by a replica after another
 * replica became leader, unless it became leader again since (records carry the time the runner took before its
 * guarded write, so a stored one was taken while its writer still held the election key).
 */
export function deposedWrites(observations: RunObservations): { violations: Violation[]; attributed: number; unattributed: number } {
  const { records, unattributed } = runnerRecords(observations.entries, observations.runs);
  const violations: Violation[] = [];
  for (const record of records) {
    const later = observations.runs.find((r) => r.entry === record.entry && r.replica !== record.writer && r.step > record.step + 1 && r.start < record.time);
    if (later) {
      violations.push({
        check: "deposed-write",
        message: `${record.writer} wrote "${record.reason}" on entry ${record.entry} at ${iso(record.time)}, after ${named(later)} began`,
      });
    }
  }
  const terms = [...observations.leadership].sort((a, b) => a.time - b.time);
  const leaderAt = (t: number) => terms.filter((e) => e.time <= t).at(-1);
  const actions = [
    ...records.map((r) => ({ replica: r.writer, time: r.time, what: `wrote "${r.reason}" on entry ${r.entry}` })),
    ...observations.runs.map((r) => ({ replica: r.replica, time: r.start, what: `started ${named(r)}` })),
  ];
  for (const action of actions) {
    const term = leaderAt(action.time);
    if (term && term.replica !== action.replica) {
      violations.push({
        check: "deposed-write",
        message: `${action.replica} ${action.what} at ${iso(action.time)}, while ${term.replica} led (since ${iso(term.time)})`,
      });
    }
  }
  return { violations, attributed: records.length, unattributed };
}

/** Every entry ended: succeeded or failed. */
export function unfinishedEntries(entries: readonly EntryView[]): Violation[] {
  return entries
    .filter((e) => e.status !== "SUCCEEDED" && e.status !== "FAILED")
    .map((e) => ({ check: "unfinished-entry", message: `entry ${e.index} (${e.address}) is still ${e.status}` }));
}

/**
 * The history explains every command: each announced attempt has its outcome recorded after it, or a later record
 * that names its operation id (an interrupted or never started command, and what kintsugi did about it); and no
 * command ran that its entry's history never announced.
 */
export function unexplainedInterruptions(entries: readonly EntryView[], runs: readonly CommandRun[]): Violation[] {
  const violations: Violation[] = [];
  const announced = new Set<string>();
  for (const entry of entries) {
    for (const note of attemptNotes(entry)) {
      announced.add(note.operationId);
      const after = entry.history.slice(note.at + 1);
      const explained = after.some((r) => isCommandOutcome(r, note.step) || r.reason.includes(note.operationId) || (r.detail ?? "").includes(note.operationId));
      if (explained) continue;
      const run = runs.find((r) => r.operationId === note.operationId);
      const fate = run === undefined ? "it never started" : run.ended ? `it ran on ${run.replica} to its ${run.ended}` : `it was killed on ${run.replica}`;
      violations.push({
        check: "unexplained-interruption",
        message: `entry ${entry.index} (${entry.address}): the history never says how step ${note.step}'s command ${note.operationId} ended (${fate})`,
      });
    }
  }
  for (const run of runs) {
    if (!announced.has(run.operationId)) violations.push({ check: "unexplained-interruption", message: `${named(run)} ran, but no history announced it` });
  }
  return violations;
}

/**
 * During an etcd outage, once `outageGraceMs` have passed, every replica that answers says 503 and names no leader.
 * One violation per outage and replica, with its first wrong answer.
 */
export function healthInOutages(observations: RunObservations): Violation[] {
  return observations.outages.flatMap((outage) => {
    const inOutage = answersInOutage(observations, outage);
    const wrong = inOutage.filter((s) => s.code !== 503 || s.leader || s.leaderName !== null);
    return [...groupBy(wrong, (s) => s.replica)].map(([replica, samples]) => {
      const first = samples[0] as HealthSample;
      const of = inOutage.filter((s) => s.replica === replica).length;
      return {
        check: "health-in-outage" as const,
        message: `${replica} answered /health ${first.code} (leader ${first.leader}, leaderName ${JSON.stringify(first.leaderName)}) at ${iso(first.time)}, etcd out since ${iso(outage.from)}; ${samples.length} of its ${of} answers in the outage were wrong`,
      };
    });
  });
}

function answersInOutage(observations: RunObservations, outage: OutageWindow): HealthSample[] {
  return observations.health.filter((s) => s.time >= outage.from + observations.outageGraceMs && s.time <= outage.to);
}

/**
 * After every fault that left etcd its quorum (a replica killed, stopped or cut off, one etcd member of three cut
 * off), a leader started a command within the recovery's bound, and went on doing so at most that far apart for as long
 * as the fault lasted: the replicas that can reach a quorum keep repairing.
 */
export function leaderless(observations: RunObservations): Violation[] {
  const boundOf = (r: Recovery, from: number, to: number) => (r.elections.some((t) => t > from && t <= to) ? r.electedBoundMs : r.boundMs);
  const violation = (r: Recovery, last: number, next: number | null): Violation => ({
    check: "liveness",
    message: `${r.what} at ${iso(r.from)}: no leader started a command within ${boundOf(r, last, next ?? r.to)} ms of ${last === r.from ? "the fault" : `the one started at ${iso(last)}`} (${next === null ? "none did" : `the next after ${next - last} ms`})`,
  });
  return observations.recoveries.flatMap((r) => {
    let last = r.from;
    for (const start of r.starts.filter((t) => t > r.from).sort((a, b) => a - b)) {
      if (start - last > boundOf(r, last, start)) return [violation(r, last, start)];
      last = start;
      if (last >= r.to) return [];
    }
    // The run went on without another command (it ended, or the next fault struck): fine once one was seen and the
    // fault did not outlast it by more than the bound.
    return last > r.from && r.to - last <= boundOf(r, last, r.to) ? [] : [violation(r, last, null)];
  });
}

/** Runs every check over a run's observations. */
export function checkRun(observations: RunObservations): CheckResult {
  const deposed = deposedWrites(observations);
  const violations: Violation[] = [
    ...(observations.unreadableLines > 0
      ? [
          {
            check: "command-log" as const,
            message: `${observations.unreadableLines} lines of the command log cannot be read: the other checks may miss what they say`,
          },
        ]
      : []),
    ...stepsRunTwice(observations.runs),
    ...overlaps(observations.runs),
    ...deposed.violations,
    ...unfinishedEntries(observations.entries),
    ...unexplainedInterruptions(observations.entries, observations.runs),
    ...healthInOutages(observations),
    ...leaderless(observations),
  ];
  const outageAnswers = observations.outages.reduce((n, o) => n + answersInOutage(observations, o).length, 0);
  return { violations, attributed: deposed.attributed, unattributed: deposed.unattributed, outageAnswers };
}
