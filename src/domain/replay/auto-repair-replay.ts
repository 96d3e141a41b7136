import { decideIntake, type IntakeDecision, type IntakeInput } from "../intake/auto-repair-intake.js";
import { recordedHolds, recordedMachines, recordedPlaces, recordedStandings, type PollRecord } from "./poll-record.js";
import type { RemediationRecord } from "./remediation-record.js";
import type { FinishedOutcome, PacingDomain } from "../pacing/repair-pacing.js";
import { advanceSchedule, emptySchedule, enqueueScheduled, withdrawScheduled, type RepairAhead, type ReplayRepairModel } from "./replay-repair-schedule.js";
import { asEntries, replayRemediation, type HealthCheckLimit, type RemediationReplayConfig, type TargetDifference } from "./remediation-replay.js";
import type { SkipKind } from "../intake/skip-kinds.js";

/** What a machine came to in one poll: enqueued, or left alone for one of the skip kinds. */
export type MachineFate = "enqueued" | SkipKind;

/** The limits a replay tries instead of the recorded ones, and its model of how long a repair takes. */
export interface ReplayLimits {
  /** The constraints to replay with; a constraint not given keeps each poll's recorded value. */
  readonly constraints: Partial<IntakeInput["constraints"]>;
  /** How long a simulated entry's repair takes once started (seconds). */
  readonly repairSeconds: number;
  /** The health checks' gate limits to replay with, by check name; a check not named keeps its recorded gate. */
  readonly healthChecks?: ReadonlyMap<string, HealthCheckLimit>;
  /**
   * How the runner starts repairs in the replay (see ReplayRepairModel); absent, every simulated repair starts at
   * once. `changed` says it differs from the runner's in force: then the entries the live run enqueued are simulated
   * too, since their recorded lifetimes came from the other runner. `seed`: the outcomes that finished before the
   * replay, in order, which pacing starts from.
   */
  readonly runner?: ReplayRunner;
  /** The most waiting repairs the schedule may weigh over the replay (the CPU it may take); absent: no bound. */
  readonly maxScheduleSteps?: number;
}

/** The runner's limits a replay starts simulated repairs under. */
export interface ReplayRunner {
  readonly maxConcurrentRepairs: number;
  readonly pacingDomains: readonly PacingDomain[];
  readonly changed: boolean;
  readonly seed?: readonly FinishedOutcome[];
}

/** One machine whose fate differs between what was and what would have been. */
export interface MachineDifference {
  readonly serial: string;
  /** The canonical address, null when the machine had none. */
  readonly address: string | null;
  readonly live: MachineFate;
  readonly simulated: MachineFate;
}

/** One evaluation (a sabakan poll or a health check's) the replay found different: what was enqueued, what would have been, and per machine why. */
export interface ReplayedPoll {
  readonly time: number;
  /** `sabakan` for a poll, else the health check's name. */
  readonly source: { readonly kind: "sabakan" } | { readonly kind: "health-check"; readonly check: string };
  readonly live: { readonly enqueued: readonly string[]; readonly shortCircuited: boolean; readonly queueSize: number };
  readonly simulated: { readonly enqueued: readonly string[]; readonly shortCircuited: boolean; readonly queueSize: number };
  readonly differences: readonly MachineDifference[];
  /** A health check's targets whose fate differs (empty for a poll). */
  readonly targets: readonly TargetDifference[];
}

export interface ReplayReport {
  readonly pollsReplayed: number;
  readonly remediationsReplayed: number;
  /** Checks with remediation records but no configuration now: their records were carried as recorded. */
  readonly unconfiguredChecks: readonly string[];
  /** Only the polls where some machine's fate, or the short circuit, differs; in the records' order. */
  readonly polls: readonly ReplayedPoll[];
  readonly enqueuedLive: number;
  readonly enqueuedSimulated: number;
  /** Whether the replay stopped before the last record because its schedule reached `maxScheduleSteps`. */
  readonly scheduleExhausted: boolean;
}

/** A simulated entry: whether it mirrors the live run's (enqueued in the same evaluation, the runner unchanged). */
interface SimulatedEntry {
  readonly mirrorsLive: boolean;
}

/** The recorded evaluations a replay weighs: the sabakan polls' and the health checks' remediations. */
export interface ReplayRecords {
  readonly polls: readonly PollRecord[];
  readonly remediations?: readonly RemediationRecord[];
}

/**
 * Replays recorded polls and health-check remediations, merged in time order (a poll first at the same
 * millisecond), through decideIntake and decideRemediation with other limits, carrying ONE simulated queue from
 * evaluation to evaluation, as live: both share maximum-repair-queue-entries and skip an address the queue holds.
 * The simulated queue is the recorded one, corrected by the differences: a recorded entry the live run enqueued
 * within the replay and the replay did not is left out while it lasts (an entry for its address that comes back
 * later, unrecorded, is an operator's); an entry the replay enqueued in the same evaluation as the
 * live run lives as long as the recorded one (while the recorded queue holds its address) unless the replay changes
 * the runner; any other entry the replay enqueued waits for its repair to start as `limits.runner` allows (behind
 * the recorded entries, which hold repair slots and pacing room while they are in the queue; see advanceSchedule),
 * stays `repairSeconds` once started, and, after a poll, leaves early when its machine left sabakan's answer
 * (sabakan says it recovered). Entries from before the replay or from operators stay as recorded. A health check's gate is
 * recomputed only when `limits.healthChecks` names it; a check no longer in `config` is carried as recorded.
 * Escalation is not weighed (what escalation enqueued or held counts as recorded on the live side).
 */
export function replayAutoRepair(records: ReplayRecords | readonly PollRecord[], limits: ReplayLimits, config?: RemediationReplayConfig): ReplayReport {
  const { polls: pollRecords, remediations = [] } = "polls" in records ? records : { polls: records };
  const merged = mergeByTime(pollRecords, remediations);
  const liveIntroduced = new Set<string>();
  const simulated = new Map<string, SimulatedEntry>();
  const polls: ReplayedPoll[] = [];
  const unconfigured = new Set<string>();
  const model: ReplayRepairModel = {
    repairSeconds: limits.repairSeconds,
    maxConcurrentRepairs: limits.runner?.maxConcurrentRepairs ?? Number.MAX_SAFE_INTEGER,
    pacingDomains: limits.runner?.pacingDomains ?? [],
  };
  let schedule = emptySchedule(merged[0]?.record.time ?? 0, limits.runner?.seed);
  let ahead: RepairAhead[] = [];
  // What pacing reads of a machine, as the latest poll that answered it said.
  const places = new Map<string, { rack: number; machineType: string }>();
  let enqueuedLive = 0;
  let enqueuedSimulated = 0;
  let pollsReplayed = 0;
  let remediationsReplayed = 0;
  let steps = 0;
  let weighed = 0;
  for (const item of merged) {
    const record = item.record;
    const advanced = advanceSchedule(schedule, record.time, ahead, model);
    schedule = advanced.schedule;
    steps += advanced.steps;
    if (steps > (limits.maxScheduleSteps ?? Number.POSITIVE_INFINITY)) break;
    weighed += 1;
    const repaired = new Set(advanced.finished);
    const recordedQueue = new Set(record.queue);
    const answered = item.kind === "poll" ? new Set(recordedStandings(item.record).keys()) : null;
    if (item.kind === "poll") for (const [address, place] of recordedPlaces(item.record)) places.set(address, place);
    for (const [address, entry] of simulated) {
      const ended = entry.mirrorsLive ? !recordedQueue.has(address) : repaired.has(address) || (answered !== null && !answered.has(address));
      if (!ended) continue;
      simulated.delete(address);
      if (!entry.mirrorsLive && !repaired.has(address)) schedule = withdrawScheduled(schedule, address, model);
    }
    // A live entry ends when the recorded queue no longer holds its address: an entry for it that comes back
    // unrecorded (an operator's) is not the live run's, and stays as recorded.
    for (const address of liveIntroduced) if (!recordedQueue.has(address)) liveIntroduced.delete(address);
    const simQueue = record.queue.filter((a) => !liveIntroduced.has(a) || simulated.has(a));
    const kept = new Set(simQueue);
    for (const address of simulated.keys()) if (!kept.has(address)) simQueue.push(address);
    const placeOf = (address: string) => places.get(address) ?? { rack: null, machineType: null };
    ahead = simQueue.filter((a) => simulated.get(a)?.mirrorsLive !== false).map((address) => ({ address, ...placeOf(address) }));
    const queueLimit = limits.constraints.maximumRepairQueueEntries;

    let simEnqueued: readonly string[];
    if (item.kind === "poll") {
      pollsReplayed += 1;
      const r = item.record;
      const machines = recordedMachines(r);
      const nodes = recordedStandings(r);
      const holds = recordedHolds(r);
      const live = decideIntake({ machines, entries: asEntries(r.queue, r.time), nodes, constraints: r.constraints, holds });
      const sim = decideIntake({ machines, entries: asEntries(simQueue, r.time), nodes, constraints: { ...r.constraints, ...limits.constraints }, holds });
      simEnqueued = sim.enqueue.map((e) => e.address);
      const differences = compareFates(live, sim, new Set(r.enqueued));
      const simShort = sim.shortCircuit !== null;
      if (differences.length > 0 || simShort !== r.shortCircuited) {
        polls.push({
          time: r.time,
          source: { kind: "sabakan" },
          live: { enqueued: r.enqueued, shortCircuited: r.shortCircuited, queueSize: r.queue.length },
          simulated: { enqueued: simEnqueued, shortCircuited: simShort, queueSize: simQueue.length },
          differences,
          targets: [],
        });
      }
    } else {
      const r = item.record;
      const check = config?.checks.get(r.check);
      if (!check || !config) {
        unconfigured.add(r.check);
        simEnqueued = r.enqueued.filter((a) => !kept.has(a) && !simulated.has(a));
      } else {
        remediationsReplayed += 1;
        const replayed = replayRemediation({
          record: r,
          check,
          repair: config.repair,
          queue: simQueue,
          maximumRepairQueueEntries: queueLimit ?? r.maximumRepairQueueEntries,
          limit: limits.healthChecks?.get(r.check),
          maximumUnhealthyMachinesPerRack: limits.constraints.maximumUnhealthyMachinesPerRack,
        });
        simEnqueued = replayed.simulated.enqueued;
        const liveShort = !replayed.liveGateOpen || r.shortCircuited;
        if (replayed.differences.length > 0 || replayed.simulated.shortCircuited !== liveShort) {
          polls.push({
            time: r.time,
            source: { kind: "health-check", check: r.check },
            live: { enqueued: r.enqueued, shortCircuited: liveShort, queueSize: r.queue.length },
            simulated: { enqueued: simEnqueued, shortCircuited: replayed.simulated.shortCircuited, queueSize: simQueue.length },
            differences: [],
            targets: replayed.differences,
          });
        }
      }
    }
    const liveEnqueued = new Set(record.enqueued);
    for (const address of record.enqueued) liveIntroduced.add(address);
    for (const address of simEnqueued) {
      const mirrorsLive = liveEnqueued.has(address) && limits.runner?.changed !== true;
      simulated.set(address, { mirrorsLive });
      if (!mirrorsLive) schedule = enqueueScheduled(schedule, { address, ...placeOf(address), enqueuedAt: record.time });
    }
    enqueuedLive += record.enqueued.length;
    enqueuedSimulated += simEnqueued.length;
  }
  return {
    pollsReplayed,
    remediationsReplayed,
    unconfiguredChecks: [...unconfigured].sort(),
    polls,
    enqueuedLive,
    enqueuedSimulated,
    scheduleExhausted: weighed < merged.length,
  };
}

type Recorded = { readonly kind: "poll"; readonly record: PollRecord } | { readonly kind: "remediation"; readonly record: RemediationRecord };

/** Both kinds of record in time order, each kind keeping its own order; a poll first at the same millisecond. */
function mergeByTime(polls: readonly PollRecord[], remediations: readonly RemediationRecord[]): Recorded[] {
  const out: Recorded[] = [];
  let i = 0;
  let j = 0;
  while (i < polls.length || j < remediations.length) {
    const p = polls[i];
    const r = remediations[j];
    if (p !== undefined && (r === undefined || p.time <= r.time)) {
      out.push({ kind: "poll", record: p });
      i += 1;
    } else if (r !== undefined) {
      out.push({ kind: "remediation", record: r });
      j += 1;
    }
  }
  return out;
}

/** The machines whose fates differ, by serial. */
function compareFates(live: IntakeDecision, sim: IntakeDecision, liveEnqueued: ReadonlySet<string>): MachineDifference[] {
  // The recorded enqueued addresses decide; a machine decided enqueued that was not must have been escalated.
  const liveFates = fates(live, (fate, address) => (address !== null && liveEnqueued.has(address) ? "enqueued" : fate === "enqueued" ? "escalated" : fate));
  const simFates = fates(sim, (fate) => fate);
  const differences: MachineDifference[] = [];
  for (const [serial, { address, fate }] of simFates) {
    const was = liveFates.get(serial)?.fate ?? fate;
    if (was !== fate) differences.push({ serial, address, live: was, simulated: fate });
  }
  return differences.sort((a, b) => (a.serial < b.serial ? -1 : a.serial > b.serial ? 1 : 0));
}

/** Each machine's fate in a decision; `override` may say it was enqueued whatever the decision says. */
function fates(
  decision: IntakeDecision,
  override: (fate: MachineFate, address: string | null) => MachineFate,
): Map<string, { address: string | null; fate: MachineFate }> {
  const out = new Map<string, { address: string | null; fate: MachineFate }>();
  for (const e of decision.enqueue) if (e.serial !== null) out.set(e.serial, { address: e.address, fate: "enqueued" });
  for (const s of decision.skipped) if (!out.has(s.serial) || s.kind !== "escalated") out.set(s.serial, { address: s.address, fate: s.kind });
  for (const v of out.values()) v.fate = override(v.fate, v.address);
  return out;
}
