import type { FinishedRepair } from "../queue/finished-repair.js";
import type { RepairHistorySummary } from "./repair-history-summary.js";
import { ascending, percentileOfSorted } from "./repair-timeline.js";

/** What repairs can be grouped by. */
export type RepairStatsDimension = (typeof REPAIR_STATS_DIMENSIONS)[number];

export const REPAIR_STATS_DIMENSIONS = ["machineType", "operation", "rack", "step"] as const;

/** The value a dimension has when it cannot be known: a machine sabakan never named, a repair whose history was not read. */
export const UNKNOWN_GROUP_VALUE = "unknown";

/** One repair that ended, and the summary of its entry's history when it was read; null when it was not. */
export interface RecordedRepair {
  readonly repair: FinishedRepair;
  readonly summary: RepairHistorySummary | null;
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
  const step = recorded.summary?.finalStep ?? null;
  return step === null ? UNKNOWN_GROUP_VALUE : String(step);
}

/** What `recorded` has along `dimension`. */
function valueOf(recorded: RecordedRepair, dimension: RepairStatsDimension, racks: ReadonlyMap<string, number>): string {
  if (dimension === "machineType") return recorded.repair.machineType;
  if (dimension === "operation") return recorded.repair.operation;
  if (dimension === "step") return finalStepOf(recorded);
  const rack = racks.get(recorded.repair.address);
  return rack === undefined ? UNKNOWN_GROUP_VALUE : String(rack);
}

/** A group being gathered: its values along the dimensions grouped by, in {@link REPAIR_STATS_DIMENSIONS} order. */
interface Gathered {
  readonly values: readonly string[];
  readonly members: RecordedRepair[];
}

/** A tree of maps, one level per dimension grouped by, whose leaves are the groups: no key is built per repair. */
type GroupTree = Map<string, GroupTree | Gathered>;

function summarize(key: RepairStatsKey, members: readonly RecordedRepair[]): RepairStatsGroup {
  const counts = { succeeded: 0, failed: 0, deleted: 0 };
  const durations: number[] = [];
  const steps: number[] = [];
  let drainingMs = 0;
  let withHistory = 0;
  for (const { repair, summary } of members) {
    counts[repair.status]++;
    if (repair.status !== "deleted") durations.push(Math.max(0, repair.finishedAt - repair.createdAt));
    if (summary === null) continue;
    withHistory++;
    drainingMs += summary.drainingMs;
    if (repair.status === "succeeded") steps.push(summary.stepsNeeded);
  }
  const { succeeded, failed } = counts;
  const ttr = ascending(durations);
  const needed = ascending(steps);
  return {
    key,
    entries: members.length,
    succeeded,
    failed,
    deleted: counts.deleted,
    successRate: succeeded + failed === 0 ? null : succeeded / (succeeded + failed),
    timeToRepair: ttr.length === 0 ? null : { p50: percentileOfSorted(ttr, 50)!, p90: percentileOfSorted(ttr, 90)!, max: ttr[ttr.length - 1]! },
    drainingMs,
    stepsNeeded: needed.length === 0 ? null : { p50: percentileOfSorted(needed, 50)!, max: needed[needed.length - 1]! },
    withHistory,
  };
}

/**
 * The statistics of `repairs` grouped by `groupBy` (one group of all repairs when it is empty), most entries first,
 * then by key. A machine's rack is what `racks` says of its address (sabakan's last answer), `unknown` when absent.
 */
export function repairStats(
  repairs: readonly RecordedRepair[],
  groupBy: readonly RepairStatsDimension[],
  racks: ReadonlyMap<string, number>,
): RepairStatsGroup[] {
  const dimensions = REPAIR_STATS_DIMENSIONS.filter((d) => groupBy.includes(d));
  if (dimensions.length === 0) return repairs.length === 0 ? [] : [summarize({ machineType: null, operation: null, rack: null, step: null }, repairs)];
  const root: GroupTree = new Map();
  const groups: Gathered[] = [];
  for (const recorded of repairs) {
    const values = dimensions.map((d) => valueOf(recorded, d, racks));
    let level = root;
    for (const v of values.slice(0, -1)) {
      const next = level.get(v) as GroupTree | undefined;
      level = next ?? (level.set(v, new Map()).get(v) as GroupTree);
    }
    const leaf = level.get(values[values.length - 1]!) as Gathered | undefined;
    if (leaf !== undefined) leaf.members.push(recorded);
    else {
      const group = { values, members: [recorded] };
      level.set(values[values.length - 1]!, group);
      groups.push(group);
    }
  }
  const keyOf = ({ values }: Gathered): RepairStatsKey => {
    const at = (d: RepairStatsDimension) => (dimensions.includes(d) ? values[dimensions.indexOf(d)]! : null);
    return { machineType: at("machineType"), operation: at("operation"), rack: at("rack"), step: at("step") };
  };
  // Every id holds the same dimensions in the same order, so ids order as the keys would.
  return groups
    .map((g) => ({ id: JSON.stringify(g.values), g }))
    .sort((a, b) => b.g.members.length - a.g.members.length || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map(({ g }) => summarize(keyOf(g), g.members));
}
