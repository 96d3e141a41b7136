import { WORKER_SELECTIONS } from "../../domain/cluster/worker-selection.js";
import { KEPT_OUTCOMES } from "../../domain/intake/auto-repair-outcome.js";
import { KEPT_GENERATIONS } from "../../domain/cluster/generation-record.js";
import { DEFAULT_FINISHED_LIMIT, MAX_FINISHED_LIMIT } from "../../domain/stats/finished-repairs-window.js";
import { MAX_MACHINE_HOLDS } from "../../domain/holds/machine-holds.js";
import { MAX_PUBLISHED_WAITS } from "../../domain/queue/published-waits.js";
import { DEFAULT_FREQUENT_TOP, MAX_FREQUENT_TOP } from "../../domain/stats/repair-stats-bounds.js";
import { REPLAY_BOUNDS } from "../../domain/replay/replay-request.js";
import { LISTED_SKIPS } from "../../domain/intake/skipped-bound.js";
import { MACHINE_STATES } from "../../domain/sabakan/machine-params.js";

/** What a list is assumed to hold when nothing bounds it but its nature: configured items, a machine's labels. */
export const ASSUMED_LIST_LENGTH = 10;

/**
 * The fewest machines the cost model assumes a fleet has, whatever sabakan last answered: a kintsugi that has not
 * polled yet (or polls a filtered part of the fleet) must not let a client ask for a fleet-sized answer cheaply.
 */
export const FLEET_FLOOR = 1_000;

/**
 * The fleet assumed while sabakan has not yet counted the whole fleet (kintsugi asks at start, and serves once it has
 * answered or a few seconds have passed): the largest fleet the default limits are made for. Every document
 * kintsugi's own clients send costs less than the default max_cost at this size (test/graphql/operation-cost.test.ts).
 */
export const FLEET_CEILING = 20_000;

/**
 * Records one entry's history holds: one per step, state change and drain back-off. Nothing caps it; this covers a
 * repair of a few steps with a few back-offs, as the kept history shows.
 */
export const HISTORY_PER_ENTRY = 20;

/** The sizes behind the bounds that change while kintsugi runs. */
export interface CostSizes {
  /** Machines in the largest fleet sabakan answered (0 when it has not answered yet). */
  readonly fleet: number;
}

/** The machines a fleet-sized list or a join is assumed to hold: what sabakan answered, at least {@link FLEET_FLOOR}. */
export function fleetBound(sizes: CostSizes): number {
  return Math.max(FLEET_FLOOR, sizes.fleet);
}

/** How many items a list field returns at most: a fixed count, the fleet, or an argument clamped as its resolver clamps it. */
type ListBound = { readonly fixed: number } | { readonly fleet: true } | { readonly argument: string; readonly absent: number; readonly max: number };

const FLEET: ListBound = { fleet: true };

/**
 * The real bound of every list that can be long, by `Type.field`; any other list is assumed to hold
 * {@link ASSUMED_LIST_LENGTH} items. A fleet-sized list holds a machine each (a poll's enqueued entries, the
 * queue, which keeps about one live entry per machine until finished entries are deleted, a health check's
 * targets, a generated cluster's nodes).
 */
const LIST_BOUNDS: ReadonlyMap<string, ListBound> = new Map<string, ListBound>([
  ["Query.searchMachines", FLEET],
  ["Query.searchRepairEntries", FLEET],
  ["Mutation.deleteFinishedRepairEntries", FLEET],
  ["Mutation.deleteUnfinishedRepairEntries", FLEET],
  ["Mutation.resetRepairBackoff", FLEET],
  ["RepairImport.imported", FLEET],
  ["RepairImport.alreadyImported", FLEET],
  ["ClusterAdoption.nextRounds", { fixed: WORKER_SELECTIONS.length }],
  ["AutoRepairOutcome.enqueued", FLEET],
  ["GeneratedCluster.nodes", FLEET],
  ["HealthCheck.targets", FLEET],
  ["HealthCheck.held", FLEET],
  ["Query.autoRepairOutcomes", { argument: "last", absent: KEPT_OUTCOMES, max: KEPT_OUTCOMES }],
  ["Query.clusterGenerations", { argument: "last", absent: KEPT_GENERATIONS, max: KEPT_GENERATIONS }],
  ["Query.finishedRepairs", { argument: "limit", absent: DEFAULT_FINISHED_LIMIT, max: MAX_FINISHED_LIMIT }],
  ["Query.frequentlyRepaired", { argument: "top", absent: DEFAULT_FREQUENT_TOP, max: MAX_FREQUENT_TOP }],
  ["AutoRepairOutcome.skipped", { argument: "first", absent: LISTED_SKIPS, max: LISTED_SKIPS }],
  // A rack holds a machine at least: never more racks than machines.
  ["MachineStateCounts.racks", FLEET],
  ["RackStateCounts.states", { fixed: MACHINE_STATES.length }],
  ["Query.machineHolds", { fixed: MAX_MACHINE_HOLDS }],
  ["Subscription.repairWaits", { fixed: MAX_PUBLISHED_WAITS }],
  ["RepairEntry.history", { fixed: HISTORY_PER_ENTRY }],
  ["Query.repairHistory", { fixed: HISTORY_PER_ENTRY }],
  ["AutoRepairReplay.polls", { fixed: REPLAY_BOUNDS.maxDifferingPolls }],
]);

/** The lists that can be long (`Type.field`): every list bounded above, whatever its bound. */
export const LONG_LISTS: ReadonlySet<string> = new Set(LIST_BOUNDS.keys());

/** How many items the list `coordinate` (`Type.field`) returns at most, given its arguments' values. */
export function listBound(coordinate: string, args: Readonly<Record<string, unknown>>, sizes: CostSizes): number {
  const bound = LIST_BOUNDS.get(coordinate);
  if (bound === undefined) return ASSUMED_LIST_LENGTH;
  if ("fixed" in bound) return bound.fixed;
  if ("fleet" in bound) return fleetBound(sizes);
  const given = args[bound.argument];
  // A negative or non-integer count is refused by the resolver; it returns nothing.
  if (typeof given !== "number") return bound.absent;
  return Math.max(0, Math.min(given, bound.max));
}

/**
 * Fields whose resolution walks the whole fleet once per operation, whatever the list they sit in: the join
 * `RepairEntry.machine` fetches every machine from sabakan with the join's selection, and `Machine.repairEntries`
 * scans the queue for every machine of the answer. Each weighs a fleet of its selection, added once.
 */
export const FLEET_JOINS: ReadonlySet<string> = new Set(["RepairEntry.machine", "Machine.repairEntries"]);
