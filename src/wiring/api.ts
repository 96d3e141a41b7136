import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { FleetSize } from "../graphql/limits/fleet-size.js";
import type { AnswerBudget } from "../graphql/limits/answer-budget.js";
import { FleetObservingClient } from "./fleet-observer.js";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import { fleetsOfEvents, MachineByAddressLoader } from "../gateway/machine-loader.js";
import { SharedFleetStates } from "../gateway/shared-fleet-states.js";
import { OperationQueries } from "../gateway/operation-queries.js";
import type { MachineStateChange } from "../gateway/sabakan-data.js";
import type { GraphQLSchema } from "graphql";
import type { AccessPolicy } from "../auth/access-policy.js";
import { EdgeGuard } from "../auth/edge-guard.js";
import type { Actor } from "../auth/roles.js";
import type { GraphQLContext } from "../graphql/context.js";
import { graphiqlRoutes } from "../graphql/graphiql-routes.js";
import { statusPageRoutes } from "../graphql/status-routes.js";
import { createHttpServer } from "../graphql/http-server.js";
import { VERSION } from "../version.js";
import { NotLeaderError, type KintsugiStore } from "../store/store-port.js";
import type { RepairSummaries } from "../runner/repair-summaries.js";
import { DependencyMonitor } from "../runner/dependency-monitor.js";
import type { Events } from "./events.js";
import type { ReservedAddress } from "./listen-address.js";
import type { Workers } from "./workers.js";
import { publishedWaitsView } from "./published-waits-view.js";
import { ReplayThreads } from "../graphql/replay/replay-threads.js";

/** The GraphQL API, listening. */
export interface Api {
  /** Base URL, e.g. http://127.0.0.1:10180 (https:// with `tls`). */
  readonly url: string;
  readonly port: number;
  /** Closes subscriptions, stops accepting requests, waits for those in flight, and stops Apollo. */
  close(): Promise<void>;
}

/** What the API knows of leadership: this replica's name, the leader's, and the workers while this replica leads. */
export interface LeaderAccess {
  readonly replicaName: string;
  /** The leader's name as this replica can confirm it now, or null (see Leadership.leader). */
  leader(): string | null;
  workers(): Workers | null;
  /** Whether this replica leads and acts now: what /health, the leader gauge and NOT_LEADER answers all say. */
  leads(): boolean;
}

/**
 * GET /health: the store's verdict (503 when it cannot be written or reached, on every replica), with the backend,
 * this replica's name, whether it leads, and who does (null when it cannot confirm who). A follower is healthy: it
 * serves the API.
 */
export function healthOf(store: KintsugiStore, leader: LeaderAccess): { healthy: boolean; reason?: string; details: Record<string, unknown> } {
  const verdict = store.health();
  const details = { store: verdict.backend, replica: leader.replicaName, leader: leader.leads(), leaderName: leader.leader() };
  return verdict.healthy ? { healthy: true, details } : { healthy: false, reason: verdict.reason, details };
}

/** What every request's context is made from. */
export interface ContextSources {
  readonly config: KintsugiConfig;
  readonly store: KintsugiStore;
  readonly events: Events;
  readonly leader: LeaderAccess;
  readonly now: () => number;
  readonly repairSummaries: RepairSummaries;
  readonly fleet?: FleetSize;
  /** What this process's own calls say of sabakan and Kubernetes; none watched when absent. */
  readonly dependencies?: DependencyMonitor;
}

/**
 * A fresh context per request (and per subscription): a query's machine loader and forwarded queries are shared
 * within its request only; a subscription event's fleet search is shared by every subscriber. `fleet` notes the size
 * of every fleet sabakan answers the gateway with (see startApi).
 */
export function contextFactory({
  config,
  store,
  events,
  leader,
  now,
  repairSummaries,
  fleet = new FleetSize(),
  dependencies = new DependencyMonitor([], now),
}: ContextSources): (actor: Actor, clientGone?: AbortSignal, answerBudget?: AnswerBudget) => GraphQLContext {
  const sabakan = config.sabakan
    ? new FleetObservingClient(
        {
          url: config.sabakan.url,
          timeoutMs: config.sabakan.timeoutSeconds * 1000,
          maxResponseBytes: config.sabakan.maxResponseBytes,
          ...(config.sabakan.maxConcurrentRequests !== undefined && { maxConcurrent: config.sabakan.maxConcurrentRequests }),
        },
        fleet,
        dependencies,
      )
    : null;
  // One search of the fleet per subscription event, shared by every subscriber.
  const eventFleets = sabakan ? fleetsOfEvents(sabakan) : null;
  const fleetStates = sabakan ? new SharedFleetStates(sabakan, now) : null;
  const leaderWorkers = () => {
    const workers = leader.workers();
    if (workers !== null) return workers;
    const name = leader.leader();
    const who = name === null ? "no replica leads right now (an election is under way, or etcd is unreachable)" : `the leader is ${JSON.stringify(name)}`;
    throw new NotLeaderError(`this replica (${JSON.stringify(leader.replicaName)}) is not the leader; ${who}: send this request to the leader`);
  };
  const published = publishedWaitsView(store);
  const replays = new ReplayThreads(config.limits.replaySeconds);
  // What does not depend on the caller is made once: a context is made per request and per subscription (1,000
  // subscribers each hold theirs for as long as they stay).
  const shared = {
    replays,
    entries: store.entries,
    settings: store.settings,
    outcomes: store.outcomes,
    config,
    now,
    sabakan,
    pubsub: events.pubsub,
    generations: store.generations,
    holds: store.holds,
    pollRecords: store.pollRecords,
    finished: store.finished,
    repairSummaries,
    dependencies: () => dependencies.list(),
    annotationHolds: () => leader.workers()?.runner.annotationHolds() ?? null,
    leaderWorkers,
    // The ledger of outcomes lives in the leader's term.
    repairPacing: () => (leader.workers() ?? leaderWorkers()).runner.pacingState(),
    // Only the leader's runner knows; a follower has no reason to give.
    waitReason: (index: number) => leader.workers()?.runner.waitReason(index) ?? null,
    // The leader answers from its runner; a follower from what the leader published.
    waitingFor: (index: number) => {
      const workers = leader.workers();
      return workers === null ? published(index) : workers.runner.waitingFor(index);
    },
    fleetStates,
    machineStateChanged: (change: MachineStateChange) => {
      // The counts read after the event see the change.
      fleetStates?.forget();
      events.pubsub.publish("machineStateChanged", change);
      // On a follower nothing more: the leader's next scheduled poll and round see the change.
      const workers = leader.workers();
      if (workers === null) return;
      if (change.state === "UNHEALTHY" || change.state === "UNREACHABLE") {
        workers.autoRepair
          .runAfterEvent()
          .catch((err: unknown) => workers.logs.autoRepair.error("event-driven auto-repair failed", { err: (err as Error).message }));
      }
      // A retiring machine's taint, an unhealthy control plane's replacement: no need to wait for the schedule.
      workers.clusterGenerator.request("event");
    },
  } satisfies Partial<GraphQLContext>;
  // A literal, not a spread of `shared`: V8 gives each object spread from another a hidden class of its own.
  return (actor, clientGone, answerBudget) => ({
    actor,
    ...(clientGone && { clientGone }),
    ...(answerBudget && { answerBudget }),
    replays: shared.replays,
    entries: shared.entries,
    settings: shared.settings,
    outcomes: shared.outcomes,
    config: shared.config,
    now: shared.now,
    sabakan: shared.sabakan,
    pubsub: shared.pubsub,
    generations: shared.generations,
    holds: shared.holds,
    pollRecords: shared.pollRecords,
    finished: shared.finished,
    repairSummaries: shared.repairSummaries,
    dependencies: shared.dependencies,
    annotationHolds: shared.annotationHolds,
    leaderWorkers: shared.leaderWorkers,
    repairPacing: shared.repairPacing,
    waitReason: shared.waitReason,
    waitingFor: shared.waitingFor,
    machineStateChanged: shared.machineStateChanged,
    fleetStates: shared.fleetStates,
    machines: sabakan && eventFleets ? new MachineByAddressLoader(sabakan, eventFleets) : null,
    sabakanQueries: sabakan ? new OperationQueries(sabakan) : null,
  });
}

/** What the API serves: its schema and access policy (`edge`), the store, the events, each request's context. */
export interface ApiParts {
  readonly config: KintsugiConfig;
  readonly address: ReservedAddress;
  readonly edge: { readonly schema: GraphQLSchema; readonly access: AccessPolicy };
  readonly store: KintsugiStore;
  readonly events: Events;
  readonly context: (actor: Actor, clientGone?: AbortSignal) => GraphQLContext;
  readonly leader: LeaderAccess;
  readonly logger: Logger;
  readonly fleet?: FleetSize;
}

/**
 * Serves the API (GraphQL over HTTP and WebSocket, GraphiQL, /health, /version, /metrics) on the configured address,
 * bound beforehand (`address`), so that a start that cannot listen stops before the store is opened. The cost
 * estimate weighs fleet-sized lists by `fleet` (see list-bounds.ts).
 */
export async function startApi({ config, address, edge, store, events, context, leader, logger, fleet = new FleetSize() }: ApiParts): Promise<Api> {
  const { server, apollo, closeSubscriptions } = await createHttpServer({
    schema: edge.schema,
    context,
    guard: new EdgeGuard(edge.access),
    routeRoles: { "/metrics": "viewer" },
    version: VERSION,
    healthCheck: () => healthOf(store, leader),
    logError: (err) => logger.error({ err }, "unexpected error"),
    logClosedReader: (closed) =>
      logger.warn(
        closed,
        closed.limit === "max_buffered_bytes"
          ? "closed a WebSocket connection whose client stopped reading"
          : "closed the WebSocket connection holding the most queued bytes: all connections together held more than the limit",
      ),
    subscriptionLag: events.pubsub.bufferSize,
    routes: { ...graphiqlRoutes(), ...statusPageRoutes(), "/metrics": () => events.metrics.text() },
    limits: config.limits,
    costSizes: () => ({ fleet: fleet.machines }),
    tls: config.tls,
  });
  try {
    await address.handOver(server);
  } catch (err) {
    await closeSubscriptions();
    await apollo.stop();
    throw err;
  }
  const { port } = server.address() as AddressInfo;
  const host = config.listen.host.includes(":") ? `[${config.listen.host}]` : config.listen.host;
  return {
    url: `${config.tls ? "https" : "http"}://${host}:${port}`,
    port,
    async close() {
      await closeSubscriptions();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await apollo.stop();
      events.metrics.close();
    },
  };
}
