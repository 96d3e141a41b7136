import type { FinishedRepair } from "../queue/finished-repair.js";
import { allowanceOf, domainValueOf, type FinishedOutcome, type PacingDomain } from "../pacing/repair-pacing.js";

/**
 * How the what-if replay models the repairs its simulated entries go through: each takes `repairSeconds` once
 * started, and starts as the runner would start it, in the order entries were enqueued, when fewer than
 * `maxConcurrentRepairs` repairs are in progress and every pacing domain it is in has room under its slow-start
 * allowance (see allowanceOf). Every simulated repair is taken to succeed with proof, so it doubles its domains'
 * allowances as a proven success does.
 */
export interface ReplayRepairModel {
  readonly repairSeconds: number;
  readonly maxConcurrentRepairs: number;
  readonly pacingDomains: readonly PacingDomain[];
}

/** A repair the replay simulates, with what pacing reads of its machine (null: the record does not say). */
export interface ScheduledRepair {
  readonly address: string;
  readonly machineType: string | null;
  readonly rack: number | null;
  /** Milliseconds since the epoch. */
  readonly enqueuedAt: number;
}

/** An entry outside the simulation (a recorded one) that holds a repair slot and its domains' room. */
export type RepairAhead = Omit<ScheduledRepair, "enqueuedAt">;

/** The simulated repairs at `time`: waiting in enqueue order, and in progress in the order they started. */
export interface RepairSchedule {
  readonly time: number;
  readonly waiting: readonly ScheduledRepair[];
  readonly running: ReadonlyArray<{ readonly repair: ScheduledRepair; readonly startedAt: number }>;
  /** The outcomes that finished before the replay, in order: the allowances start from them. */
  readonly seed: readonly FinishedOutcome[];
  /** The allowance of each pacing domain value (`domain NUL value`) a simulated repair finished in so far. */
  readonly allowances: ReadonlyMap<string, number>;
}

/** An empty schedule at `time`, pacing from `seed` (the outcomes that finished before the replay, in order). */
export function emptySchedule(time: number, seed: readonly FinishedOutcome[] = []): RepairSchedule {
  return { time, waiting: [], running: [], seed, allowances: new Map() };
}

/**
 * The outcomes a replay from `since` paces from: the finished-repair records of repairs that finished (succeeded or
 * failed, not dequeued unfinished) before `since`, in the order they finished, each machine's rack as `racks` knows
 * it (null, and so in no rack, when it does not).
 */
export function pacingSeedOf(records: readonly FinishedRepair[], since: number, racks: ReadonlyMap<string, number>): FinishedOutcome[] {
  return records
    .filter((r) => r.finishedAt < since && r.status !== "deleted")
    .sort((a, b) => a.finishedAt - b.finishedAt || a.entryIndex - b.entryIndex)
    .map((r) => ({
      entryIndex: r.entryIndex,
      machineType: r.machineType,
      rack: racks.get(r.address) ?? null,
      status: r.status as "succeeded" | "failed",
      time: r.finishedAt,
      ...(r.proof && { proof: r.proof }),
    }));
}

/** The schedule with `repair` waiting behind those already enqueued (advance the schedule to its enqueue time first). */
export function enqueueScheduled(schedule: RepairSchedule, repair: ScheduledRepair): RepairSchedule {
  return { ...schedule, waiting: [...schedule.waiting, repair] };
}

/**
 * The schedule without the repair of `address`, because its machine needs none any more (sabakan stopped reporting
 * it): a waiting one leaves no outcome (as an entry found healthy before any repair neither doubles nor resets an
 * allowance); one in progress counts as the success it turned out to be. Advance the schedule to the time of the
 * withdrawal first: what it frees starts at the next advance.
 */
export function withdrawScheduled(schedule: RepairSchedule, address: string, model: ReplayRepairModel): RepairSchedule {
  const running = schedule.running.find((r) => r.repair.address === address);
  const allowances = new Map(schedule.allowances);
  if (running) succeed(allowances, schedule.seed, running.repair, model);
  return {
    ...schedule,
    waiting: schedule.waiting.filter((r) => r.address !== address),
    running: schedule.running.filter((r) => r.repair.address !== address),
    allowances,
  };
}

/**
 * Runs the schedule forward to `until`: repairs finish `repairSeconds` after they started, and whenever one finishes
 * (and at the schedule's own time) waiting repairs start as the model allows. `ahead` are entries outside the
 * simulation that were in the queue meanwhile (recorded ones, enqueued before the simulated ones): they hold
 * concurrency and pacing room, so nothing simulated starts while they fill it. Returns the schedule at `until`, the
 * addresses whose repairs finished in order, and `steps`: the waiting repairs weighed, the measure of the work done.
 */
export function advanceSchedule(
  schedule: RepairSchedule,
  until: number,
  ahead: readonly RepairAhead[],
  model: ReplayRepairModel,
): { readonly schedule: RepairSchedule; readonly finished: readonly string[]; readonly steps: number } {
  const duration = model.repairSeconds * 1000;
  const allowances = new Map(schedule.allowances);
  const inProgress = new Map<string, number>();
  for (const r of ahead) adjust(inProgress, keysOf(r, model), 1);
  for (const r of schedule.running) adjust(inProgress, keysOf(r.repair, model), 1);
  // Every repair takes the same time, so the one started first ends first: `running` stays in start order.
  const running = [...schedule.running];
  let head = 0;
  // Waiting repairs held back by pacing (`front`, in order) come before the rest (`tail` from `t`): a pass weighs
  // the held-back ones again and then the rest until the slots are full, so a long queue costs only what starts.
  let front: ScheduledRepair[] = [];
  const tail = schedule.waiting;
  let t = 0;
  let steps = 0;
  const full = () => ahead.length + running.length - head >= model.maxConcurrentRepairs;
  const keyCache = new Map<ScheduledRepair, DomainKey[]>();
  const tryStart = (r: ScheduledRepair, time: number): boolean => {
    steps++;
    let keys = keyCache.get(r);
    if (keys === undefined) keyCache.set(r, (keys = keysOf(r, model)));
    if (!keys.every((domainKey) => (inProgress.get(domainKey[0]) ?? 0) < allowanceIn(allowances, schedule.seed, domainKey, model))) return false;
    running.push({ repair: r, startedAt: time });
    adjust(inProgress, keys, 1);
    return true;
  };
  const startWhatFits = (time: number) => {
    const kept: ScheduledRepair[] = [];
    for (const r of front) if (full() || !tryStart(r, time)) kept.push(r);
    front = kept;
    while (t < tail.length && !full()) {
      const r = tail[t++]!;
      if (!tryStart(r, time)) front.push(r);
    }
  };
  startWhatFits(schedule.time);
  const finished: string[] = [];
  while (head < running.length && running[head]!.startedAt + duration <= until) {
    const { repair, startedAt } = running[head++]!;
    adjust(inProgress, keysOf(repair, model), -1);
    succeed(allowances, schedule.seed, repair, model);
    finished.push(repair.address);
    startWhatFits(startedAt + duration);
  }
  return {
    schedule: { ...schedule, time: Math.max(schedule.time, until), waiting: front.concat(tail.slice(t)), running: running.slice(head), allowances },
    finished,
    steps,
  };
}

type DomainKey = readonly [key: string, domain: PacingDomain, value: string];

/** The pacing domain values a repair is in; a machine type the record does not know is in no machine_type value. */
function keysOf(r: RepairAhead, model: ReplayRepairModel): DomainKey[] {
  const keys: DomainKey[] = [];
  for (const domain of model.pacingDomains) {
    if (domain === "machine_type" && r.machineType === null) continue;
    const value = domainValueOf(domain, r.machineType ?? "", r.rack);
    if (value !== null) keys.push([`${domain}\u0000${value}`, domain, value]);
  }
  return keys;
}

function adjust(counts: Map<string, number>, keys: readonly DomainKey[], by: number): void {
  for (const [key] of keys) counts.set(key, (counts.get(key) ?? 0) + by);
}

/** A domain value's allowance: as the seed left it until a simulated repair finished in it. */
function allowanceIn(allowances: Map<string, number>, seed: readonly FinishedOutcome[], [key, domain, value]: DomainKey, model: ReplayRepairModel): number {
  let allowance = allowances.get(key);
  if (allowance === undefined) {
    allowance = allowanceOf(domain, value, seed, model.maxConcurrentRepairs).allowance;
    allowances.set(key, allowance);
  }
  return allowance;
}

/** A proven success doubles the allowance of each of its domain values, up to max_concurrent_repairs. */
function succeed(allowances: Map<string, number>, seed: readonly FinishedOutcome[], repair: ScheduledRepair, model: ReplayRepairModel): void {
  for (const domainKey of keysOf(repair, model)) {
    allowances.set(domainKey[0], Math.min(Math.max(1, model.maxConcurrentRepairs), allowanceIn(allowances, seed, domainKey, model) * 2));
  }
}
