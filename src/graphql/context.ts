import type { KintsugiConfig } from "../config/kintsugi-config.js";
import type {
  AutoRepairOutcomePort,
  ClusterGenerationPort,
  FinishedRepairPort,
  MachineHoldPort,
  PollRecordPort,
  RepairEntryPort,
  SettingsPort,
} from "../store/store-port.js";
import type { MachineHold } from "../domain/holds/machine-holds.js";
import type { WaitingFor } from "../domain/queue/repair-wait.js";
import type { AutoRepairOutcome } from "../domain/intake/auto-repair-outcome.js";
import type { DependencyStatus } from "../domain/service/dependency-status.js";
import type { SabakanGatewayClient } from "../adapters/sabakan-gateway-client.js";
import type { MachineByAddressLoader } from "../gateway/machine-loader.js";
import type { OperationQueries } from "../gateway/operation-queries.js";
import type { SharedFleetStates } from "../gateway/shared-fleet-states.js";
import type { MachineStateChange } from "../gateway/sabakan-data.js";
import type { PubSub } from "./pubsub.js";
import type { HealthCheckStatus } from "../domain/health/health-check-remediation.js";
import type { Topics } from "./topics.js";
import type { ClusterGeneration, GenerationRound } from "../domain/cluster/generation-record.js";
import type { Adoption } from "../domain/cluster/adoption.js";
import type { RepairStatsDimension, RepairStatsGroup } from "../domain/stats/repair-stats.js";
import type { Actor } from "../auth/roles.js";
import type { ReplayThreads } from "./replay/replay-threads.js";
import type { AnswerBudget } from "./limits/answer-budget.js";

import type { DomainPacing } from "../domain/pacing/repair-pacing-report.js";

// The API declares the little it needs of the runner's workers (the runner's classes satisfy it), so graphql/ does
// not import runner/.
/** What only the leader has: the workers that act on the world. */
export interface LeaderWorkers {
  /** One sabakan poll now. */
  readonly autoRepair: { runNow(): Promise<AutoRepairOutcome> };
  readonly healthChecks: {
    list(): HealthCheckStatus[];
    /** null: no check of that name. */
    setPaused(name: string, paused: boolean): Promise<HealthCheckStatus | null>;
  };
  /** One cluster generation round now; and adopting the configuration CKE runs, between rounds. */
  readonly clusterGenerator: { runNow(): Promise<GenerationRound>; adopt(text: string): Promise<ClusterAdoptionOutcome> };
}

/** How an adoption ended (the runner's AdoptionOutcome). */
export type ClusterAdoptionOutcome =
  | { readonly kind: "refused"; readonly errors: readonly string[] }
  | { readonly kind: "adopted"; readonly record: ClusterGeneration; readonly adoption: Adoption };

/** The ended repairs with their histories' summaries (the runner's RepairSummaries). */
export interface RepairSummaryReader {
  /** repairStats of the repairs that finished in [since, until) (ms); shared between requests, never to be changed. */
  stats(since: number, until: number, groupBy: readonly RepairStatsDimension[], racks: ReadonlyMap<string, number>): Promise<readonly RepairStatsGroup[]>;
}

/**
 * What every resolver gets: the store's parts, the config, the clock and the gateway's sabakan. Made afresh for each
 * request (the machine loader batches within one request only). Resolvers only write: the store announces each
 * commit (to subscriptions, metrics and the runner), so nothing here announces anything.
 */
export interface GraphQLContext {
  /** Who made the request (a token's name, or "anonymous") and their role; the edge admitted them, resolvers trust it. */
  readonly actor: Actor;
  readonly entries: RepairEntryPort;
  readonly settings: SettingsPort;
  readonly outcomes: AutoRepairOutcomePort;
  readonly config: KintsugiConfig;
  /** Milliseconds since the epoch; the only clock resolvers read. */
  readonly now: () => number;
  /** null = sabakan is not configured. */
  readonly sabakan: SabakanGatewayClient | null;
  /** This request's batched machine lookups; null without sabakan. */
  readonly machines: MachineByAddressLoader | null;
  /** This request's forwarded queries, each sent once per execution; null without sabakan. */
  readonly sabakanQueries: OperationQueries | null;
  /** sabakan's machines' racks and states, one search shared by every request (machineStateCounts); null without sabakan. */
  readonly fleetStates: SharedFleetStates | null;
  readonly pubsub: PubSub<Topics>;
  readonly generations: ClusterGenerationPort;
  /** The machine holds set through the API. */
  readonly holds: MachineHoldPort;
  /** The sabakan polls' records (the what-if replay's input). */
  readonly pollRecords: PollRecordPort;
  /** The repairs that ended (repair analytics read them). */
  readonly finished: FinishedRepairPort;
  /** The ended repairs with their histories' summaries, kept by this process (repairStats reads them). */
  readonly repairSummaries: RepairSummaryReader;
  /** What this process's own calls say of sabakan and Kubernetes (configured ones only): up, or down since when. */
  readonly dependencies: () => readonly DependencyStatus[];
  /** The holds the leader's last repair pass read from Node annotations; null on a follower (it does not watch Nodes). */
  readonly annotationHolds: () => readonly MachineHold[] | null;
  /**
   * The workers of this replica's term as leader (sabakan polls, health-check statuses, cluster generation rounds):
   * they run on the leader only. On a follower this throws NOT_LEADER naming the leader to ask.
   */
  readonly leaderWorkers: () => LeaderWorkers;
  /** Each pacing domain's allowance and repairs in progress (null: pacing is off); throws NOT_LEADER on a follower. */
  readonly repairPacing: () => DomainPacing[] | null;
  /** Why the runner's last pass left an entry where it is, or null (see `RepairRunner.waitReason`). */
  readonly waitReason: (index: number) => string | null;
  /** What an unfinished entry waits for: the leader's runner, or what the leader published (see `RepairWaits`). */
  readonly waitingFor: (index: number) => WaitingFor | null;
  /** The replays' worker threads, shared by every request (one replay at a time server-wide). */
  readonly replays: ReplayThreads;
  /** Aborted when the request's client went away before its answer (HTTP only; absent over WebSocket). */
  readonly clientGone?: AbortSignal;
  /** What the answer may grow to, spent as its long lists resolve (HTTP only: a subscription's events are measured each). */
  readonly answerBudget?: AnswerBudget;
  /** Called after sabakan accepted a state change made through kintsugi. */
  readonly machineStateChanged: (change: MachineStateChange) => void;
}
