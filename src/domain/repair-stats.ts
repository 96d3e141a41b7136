import type { FinishedRepair } from "./finished-repair.js";
import { drainingTimeOf, percentileOf, stepsNeededOf, type RepairTimelinePoint } from "./repair-timeline.js";

/** What repairs can be grouped by. */
export type RepairStatsDimension = (typeof REPAIR_STATS_DIMENSIONS)[number];

export const REPAIR_STATS_DIMENSIONS = ["machineType", "operation", "rack", "step"] as const;

/** The value a dimension has when it cannot be known: a machine sabakan never named, a repair whose history was not read. */
export const UNKNOWN_GROUP_VALUE = "unknown";

/** One repair that ended, and its entry's history (oldest first) when it was read; null when it was not. */
export interface RecordedRepair {
  readonly repair: FinishedRepair;
  readonly history: readonly RepairTimelinePoint[] | null;
}

/** A group's values, one per dimension grouped by (null: not grouped by it); rack and step are decimal or `unknown`. */
export interface RepairStatsKey {
  readonly machineType: string | null;
  readonly operation: string | null;
  readonly rack: string | null;
  readonly step: string | null;
}

/** Milliseconds. */
export interface DurationSummary {
  readonly p50: number;
  readonly p90: number;
  readonly max: number;
}

/** What the repairs of one group did. */
export interface RepairStatsGroup {
  readonly key: RepairStatsKey;
  /** Every repair that ended in the group: succeeded, failed, or dequeued before it finished (deleted). */
  readonly entries: number;
  readonly succeeded: number;
  readonly failed: number;
  readonly deleted: number;
  /** succeeded / (succeeded + failed); null when none finished. */
  readonly successRate: number | null;
  /** Creation to finish of the repairs that finished (succeeded or failed); null when none did. */
  readonly timeToRepair: DurationSummary | null;
  /** The time the group's repairs spent draining, summed over those whose history was read (ms). */
  readonly drainingMs: number;
  /** The steps the succeeded repairs needed (those whose history was read); null when there are none. */
  readonly stepsNeeded: { readonly p50: number; readonly max: number } | null;
  /** How many of the group's repairs had their history read (draining and steps count only those). */
  readonly withHistory: number;
}

/** The step a repair ended in (its last record's), or `unknown` without its history. */
function finalStepOf(recorded: RecordedRepair): string {
  const last = recorded.history?.[recorded.history.length - 1];
  return last === undefined ? UNKNOWN_GROUP_VALUE : String(last.step);
}

function keyOf(recorded: RecordedRepair, groupBy: ReadonlySet<RepairStatsDimension>, racks: ReadonlyMap<string, number>): RepairStatsKey {
  const { repair } = recorded;
  const rack = racks.get(repair.address);
  return {
    machineType: groupBy.has("machineType") ? repair.machineType : null,
    operation: groupBy.has("operation") ? repair.operation : null,
    rack: groupBy.has("rack") ? (rack === undefined ? UNKNOWN_GROUP_VALUE : String(rack)) : null,
    step: groupBy.has("step") ? finalStepOf(recorded) : null,
  };
}

function summarize(key: RepairStatsKey, members: readonly RecordedRepair[]): RepairStatsGroup {
  const count = (status: FinishedRepair["status"]) => members.filter((m) => m.repair.status === status).length;
  const succeeded = count("succeeded");
  const failed = count("failed");
  const durations = members.filter((m) => m.repair.status !== "deleted").map((m) => Math.max(0, m.repair.finishedAt - m.repair.createdAt));
  const read = members.filter((m) => m.history !== null);
  const steps = read.filter((m) => m.repair.status === "succeeded").map((m) => stepsNeededOf(m.history!));
  return {
    key,
    entries: members.length,
    succeeded,
    failed,
    deleted: count("deleted"),
    successRate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
    timeToRepair: durations.length === 0 ? null : { p50: percentileOf(durations, 50)!, p90: percentileOf(durations, 90)!, max: Math.max(...durations) },
    drainingMs: read.reduce((sum, m) => sum + drainingTimeOf(m.history!, m.repair.finishedAt), 0),
    stepsNeeded: steps.length === 0 ? null : { p50: percentileOf(steps, 50)!, max: Math.max(...steps) },
    withHistory: read.length,
  };
}

/**
 * The statistics of `repairs` grouped by `groupBy` (one group of all repairs when it is empty), most entries first,
 * then by key. A machine's rack is what `racks` says of its address (sabakan's last answer), `unknown` when absent.
 */
export function repairStats(repairs: readonly RecordedRepair[], groupBy: readonly RepairStatsDimension[], racks: ReadonlyMap<string, number>): RepairStatsGroup[] {
  const dimensions = new Set(groupBy);
  const groups = new Map<string, { key: RepairStatsKey; members: RecordedRepair[] }>();
  for (const recorded of repairs) {
    const key = keyOf(recorded, dimensions, racks);
    const id = JSON.stringify(key);
    const group = groups.get(id) ?? { key, members: [] };
    group.members.push(recorded);
    groups.set(id, group);
  }
  return [...groups.entries()]
    .sort(([a, ga], [b, gb]) => gb.members.length - ga.members.length || (a < b ? -1 : a > b ? 1 : 0))
    .map(([, g]) => summarize(g.key, g.members));
}
