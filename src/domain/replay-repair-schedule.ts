import { allowanceOf, domainValueOf, type FinishedOutcome, type PacingDomain } from "./repair-pacing.js";

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

/** The simulated repairs at `time`: waiting in enqueue order, in progress with their start, and the outcomes so far. */
export interface RepairSchedule {
  readonly time: number;
  readonly waiting: readonly ScheduledRepair[];
  readonly running: ReadonlyArray<{ readonly repair: ScheduledRepair; readonly startedAt: number }>;
  /** Finished repairs in the order they finished (pacing's input); seeded with the outcomes before the replay. */
  readonly finished: readonly FinishedOutcome[];
}

/** An empty schedule at `time`, pacing from `seed` (the outcomes that finished before the replay, in order). */
export function emptySchedule(time: number, seed: readonly FinishedOutcome[] = []): RepairSchedule {
  return { time, waiting: [], running: [], finished: [...seed] };
}

/** The schedule with `repair` waiting behind those already enqueued (advance the schedule to its enqueue time first). */
export function enqueueScheduled(schedule: RepairSchedule, repair: ScheduledRepair): RepairSchedule {
  return { ...schedule, waiting: [...schedule.waiting, repair] };
}

/**
 * The schedule without the repair of `address`, ended at `time` because its machine needs none any more (sabakan
 * stopped reporting it): a waiting one leaves no outcome (as an entry found healthy before any repair neither
 * doubles nor resets an allowance); one in progress counts as the success it turned out to be. Advance the schedule
 * to `time` first: what the withdrawal frees starts at the next advance.
 */
export function withdrawScheduled(schedule: RepairSchedule, address: string, time: number): RepairSchedule {
  const running = schedule.running.find((r) => r.repair.address === address);
  return {
    ...schedule,
    waiting: schedule.waiting.filter((r) => r.address !== address),
    running: schedule.running.filter((r) => r.repair.address !== address),
    finished: running ? [...schedule.finished, succeeded(running.repair, time, schedule.finished.length)] : schedule.finished,
  };
}

/**
 * Runs the schedule forward to `until`: repairs finish `repairSeconds` after they started, and whenever one finishes
 * (and at the schedule's own time) waiting repairs start as the model allows. `ahead` are entries outside the
 * simulation that were in the queue meanwhile (recorded ones, enqueued before the simulated ones): they hold
 * concurrency and pacing room, so nothing simulated starts while they fill it. Returns the schedule at `until` and
 * the addresses whose repairs finished, in order.
 */
export function advanceSchedule(
  schedule: RepairSchedule,
  until: number,
  ahead: readonly Omit<ScheduledRepair, "enqueuedAt">[],
  model: ReplayRepairModel,
): { readonly schedule: RepairSchedule; readonly finished: readonly string[] } {
  const duration = model.repairSeconds * 1000;
  let current = startWhatFits(schedule, schedule.time, ahead, model);
  const done: string[] = [];
  for (;;) {
    const next = earliestEnd(current, duration);
    if (next === null || next.end > until) break;
    const finished = [...current.finished, succeeded(next.repair, next.end, current.finished.length)];
    current = { ...current, running: current.running.filter((r) => r.repair !== next.repair), finished };
    done.push(next.repair.address);
    current = startWhatFits(current, next.end, ahead, model);
  }
  return { schedule: { ...current, time: Math.max(current.time, until) }, finished: done };
}

function earliestEnd(schedule: RepairSchedule, duration: number): { repair: ScheduledRepair; end: number } | null {
  let best: { repair: ScheduledRepair; end: number } | null = null;
  for (const r of schedule.running) {
    const end = r.startedAt + duration;
    if (best === null || end < best.end) best = { repair: r.repair, end };
  }
  return best;
}

/** Starts, in order, every waiting repair that has room at `time` (a held-back one does not block the others). */
function startWhatFits(schedule: RepairSchedule, time: number, ahead: readonly Omit<ScheduledRepair, "enqueuedAt">[], model: ReplayRepairModel): RepairSchedule {
  const inProgress = new Map<string, number>();
  const allowances = new Map<string, number>();
  const keysOf = (r: Omit<ScheduledRepair, "enqueuedAt">): Array<[string, PacingDomain, string]> =>
    model.pacingDomains.flatMap((domain): Array<[string, PacingDomain, string]> => {
      if (domain === "machine_type" && r.machineType === null) return [];
      const value = domainValueOf(domain, r.machineType ?? "", r.rack);
      return value === null ? [] : [[`${domain}\u0000${value}`, domain, value]];
    });
  const admit = (r: Omit<ScheduledRepair, "enqueuedAt">) => {
    for (const [key] of keysOf(r)) inProgress.set(key, (inProgress.get(key) ?? 0) + 1);
  };
  const hasRoom = (r: ScheduledRepair) =>
    keysOf(r).every(([key, domain, value]) => {
      let allowance = allowances.get(key);
      if (allowance === undefined) {
        allowance = allowanceOf(domain, value, schedule.finished, model.maxConcurrentRepairs).allowance;
        allowances.set(key, allowance);
      }
      return (inProgress.get(key) ?? 0) < allowance;
    });
  for (const r of ahead) admit(r);
  for (const r of schedule.running) admit(r.repair);
  let busy = ahead.length + schedule.running.length;
  const running = [...schedule.running];
  const waiting: ScheduledRepair[] = [];
  for (const r of schedule.waiting) {
    if (busy < model.maxConcurrentRepairs && hasRoom(r)) {
      running.push({ repair: r, startedAt: time });
      admit(r);
      busy++;
    } else {
      waiting.push(r);
    }
  }
  return { ...schedule, time, running, waiting };
}

function succeeded(repair: ScheduledRepair, time: number, sequence: number): FinishedOutcome {
  // A simulated repair is no stored entry: its place among the outcomes stands in for an index.
  return { entryIndex: -1 - sequence, machineType: repair.machineType ?? "", rack: repair.rack, status: "succeeded", time };
}
