import { decideIntake, type IntakeDecision, type IntakeInput } from "./auto-repair-intake.js";
import { recordedHolds, recordedMachines, recordedPlaces, recordedStandings, type PollRecord } from "./poll-record.js";
import type { FinishedOutcome, PacingDomain } from "./repair-pacing.js";
import { createRepairEntry, type RepairEntry } from "./repair-entry.js";
import { advanceSchedule, emptySchedule, enqueueScheduled, withdrawScheduled, type ReplayRepairModel, type ScheduledRepair } from "./replay-repair-schedule.js";
import type { SkipKind } from "./skip-kinds.js";

/** What a machine came to in one poll: enqueued, or left alone for one of the skip kinds. */
export type MachineFate = "enqueued" | SkipKind;

/** The limits a replay tries instead of the recorded ones, and its model of how long a repair takes. */
export interface ReplayLimits {
  /** The constraints to replay with; a constraint not given keeps each poll's recorded value. */
  readonly constraints: Partial<IntakeInput["constraints"]>;
  /** How long a simulated entry's repair takes once started (seconds). */
  readonly repairSeconds: number;
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

/** One poll the replay found different: what was enqueued, what would have been, and per machine why. */
export interface ReplayedPoll {
  readonly time: number;
  readonly live: { readonly enqueued: readonly string[]; readonly shortCircuited: boolean; readonly queueSize: number };
  readonly simulated: { readonly enqueued: readonly string[]; readonly shortCircuited: boolean; readonly queueSize: number };
  readonly differences: readonly MachineDifference[];
}

export interface ReplayReport {
  readonly pollsReplayed: number;
  /** Only the polls where some machine's fate, or the short circuit, differs; in the records' order. */
  readonly polls: readonly ReplayedPoll[];
  readonly enqueuedLive: number;
  readonly enqueuedSimulated: number;
  /** Whether the replay stopped before the last record because its schedule reached `maxScheduleSteps`. */
  readonly scheduleExhausted: boolean;
}

/** A simulated entry: when it was enqueued, and whether the live run enqueued the same address in the same poll. */
interface SimulatedEntry {
  readonly since: number;
  readonly mirrorsLive: boolean;
}

/**
 * Replays recorded polls (oldest first) through decideIntake with other limits, carrying a simulated queue from
 * poll to poll, and reports where the outcome differs. The simulated queue is the recorded one, corrected by
 * the differences: a recorded entry the live run enqueued within the replay and the replay did not is left out;
 * an entry the replay enqueued in the same poll as the live run lives as long as the recorded one (while the
 * recorded queue holds its address) unless the replay changes the runner; any other entry the replay enqueued
 * waits for its repair to start as `limits.runner` allows (behind the recorded entries, which hold repair slots and
 * pacing room while they are in the queue; see advanceSchedule), stays `repairSeconds` once started, and leaves
 * early when its machine leaves sabakan's answer (sabakan says it recovered). Entries from before the replay,
 * from health checks or operators stay as recorded. The live fate of a machine that was not enqueued is decideIntake's on the
 * recorded input with the recorded limits; the recorded enqueued addresses are the authority on what was.
 * Escalation is not weighed (a machine escalation enqueued or held counts as recorded on the live side).
 */
export function replayAutoRepair(records: readonly PollRecord[], limits: ReplayLimits): ReplayReport {
  const liveIntroduced = new Set<string>();
  const simulated = new Map<string, SimulatedEntry>();
  const polls: ReplayedPoll[] = [];
  const model: ReplayRepairModel = {
    repairSeconds: limits.repairSeconds,
    maxConcurrentRepairs: limits.runner?.maxConcurrentRepairs ?? Number.MAX_SAFE_INTEGER,
    pacingDomains: limits.runner?.pacingDomains ?? [],
  };
  let schedule = emptySchedule(records[0]?.time ?? 0, limits.runner?.seed);
  let ahead: Array<Omit<ScheduledRepair, "enqueuedAt">> = [];
  let enqueuedLive = 0;
  let enqueuedSimulated = 0;
  let steps = 0;
  let replayed = 0;
  for (const record of records) {
    const machines = recordedMachines(record);
    const nodes = recordedStandings(record);
    const holds = recordedHolds(record);
    const recordedQueue = new Set(record.queue);
    const answered = new Set(nodes.keys());
    const advanced = advanceSchedule(schedule, record.time, ahead, model);
    schedule = advanced.schedule;
    steps += advanced.steps;
    if (steps > (limits.maxScheduleSteps ?? Number.POSITIVE_INFINITY)) break;
    replayed++;
    const repaired = new Set(advanced.finished);
    for (const [address, entry] of simulated) {
      const ended = entry.mirrorsLive ? !recordedQueue.has(address) : repaired.has(address) || !answered.has(address);
      if (!ended) continue;
      simulated.delete(address);
      if (!entry.mirrorsLive && !repaired.has(address)) schedule = withdrawScheduled(schedule, address, model);
    }
    const simQueue = record.queue.filter((a) => !liveIntroduced.has(a) || simulated.has(a));
    const kept = new Set(simQueue);
    for (const address of simulated.keys()) if (!kept.has(address)) simQueue.push(address);
    const placed = recordedPlaces(record);
    ahead = simQueue.filter((a) => !simulated.has(a) || simulated.get(a)!.mirrorsLive).map((address) => ({ address, ...(placed.get(address) ?? { rack: null, machineType: null }) }));

    const live = decideIntake({ machines, entries: asEntries(record.queue, record.time), nodes, constraints: record.constraints, holds });
    const sim = decideIntake({ machines, entries: asEntries(simQueue, record.time), nodes, constraints: { ...record.constraints, ...limits.constraints }, holds });
    const liveEnqueued = new Set(record.enqueued);
    const differences = compareFates(live, sim, liveEnqueued);
    const simShort = sim.shortCircuit !== null;
    if (differences.length > 0 || simShort !== record.shortCircuited) {
      polls.push({
        time: record.time,
        live: { enqueued: record.enqueued, shortCircuited: record.shortCircuited, queueSize: record.queue.length },
        simulated: { enqueued: sim.enqueue.map((e) => e.address), shortCircuited: simShort, queueSize: simQueue.length },
        differences,
      });
    }
    for (const address of record.enqueued) liveIntroduced.add(address);
    for (const e of sim.enqueue) {
      const mirrorsLive = liveEnqueued.has(e.address) && limits.runner?.changed !== true;
      simulated.set(e.address, { since: record.time, mirrorsLive });
      if (!mirrorsLive) schedule = enqueueScheduled(schedule, { address: e.address, machineType: e.machineType, rack: placed.get(e.address)?.rack ?? null, enqueuedAt: record.time });
    }
    enqueuedLive += record.enqueued.length;
    enqueuedSimulated += sim.enqueue.length;
  }
  return { pollsReplayed: replayed, polls, enqueuedLive, enqueuedSimulated, scheduleExhausted: replayed < records.length };
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
function fates(decision: IntakeDecision, override: (fate: MachineFate, address: string | null) => MachineFate): Map<string, { address: string | null; fate: MachineFate }> {
  const out = new Map<string, { address: string | null; fate: MachineFate }>();
  for (const e of decision.enqueue) if (e.serial !== null) out.set(e.serial, { address: e.address, fate: "enqueued" });
  for (const s of decision.skipped) if (!out.has(s.serial) || s.kind !== "escalated") out.set(s.serial, { address: s.address, fate: s.kind });
  for (const v of out.values()) v.fate = override(v.fate, v.address);
  return out;
}

/** Stand-ins for the persisting entries: decideIntake without escalation reads only their addresses and count. */
function asEntries(addresses: readonly string[], now: number): RepairEntry[] {
  return addresses.map((address, index) => ({ ...createRepairEntry({ address, machineType: "", operation: "", serial: null, source: "replay" }, now), index }));
}
