import { randomBytes } from "node:crypto";
import type { ConfigProblem } from "./config/load-config.js";
import { pino, type Logger } from "pino";
import type { NodeOperator } from "./adapters/ports.js";
import { DEFAULT_KUBERNETES_TIMEOUT_SECONDS, type KintsugiConfig } from "./config/kintsugi-config.js";
import type { AutoRepairOutcome } from "./domain/intake/auto-repair-outcome.js";
import type { ClusterGeneration } from "./domain/cluster/generation-record.js";
import { accessLogLine, accessPolicyOrRefuse } from "./auth/access-policy.js";
import { assertRoleTableMatches } from "./auth/operation-roles.js";
import { buildSchema } from "./graphql/schema.js";
import type { KintsugiStore, RepairChange } from "./store/store-port.js";
import { VERSION } from "./version.js";
import { contextFactory, startApi, type Api, type LeaderAccess } from "./wiring/api.js";
import { countingClient, observedFleet, type ObservedFleet } from "./wiring/fleet-observer.js";
import { pinoLog } from "./support/log.js";
import { buildEvents } from "./wiring/events.js";
import { shutDown } from "./wiring/shutdown.js";
import { openBackend, type Backend } from "./wiring/stores.js";
import { reserveListenAddress } from "./wiring/listen-address.js";
import { RepairSummaries } from "./runner/repair-summaries.js";
import { DependencyMonitor } from "./runner/dependency-monitor.js";
import { beginLeaderTerm, LeaderTerms } from "./wiring/leader-term.js";

/** A started kintsugi: where it listens, and how to stop it. */
export interface RunningKintsugi {
  /** Base URL, e.g. http://127.0.0.1:10180 (GraphQL at `${url}/graphql`). */
  readonly url: string;
  readonly port: number;
  /**
   * The store it serves, for an embedding program (and tests) that reads or writes as the API would. A write through
   * it is announced as any other: the runner, the subscriptions and the metrics hear it.
   */
  readonly store: KintsugiStore;
  /** Stops accepting requests, waits for the ones in flight, and closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly logger?: Logger;
  /** What loading the config file found worth a warning (unknown keys of CKE's repair section): logged at start. */
  readonly configWarnings?: readonly ConfigProblem[];
  /** The clock; tests pass a fixed one. */
  readonly now?: () => number;
  /** Called with the entry changes of every commit the store announces, in commit order. */
  readonly onCommitted?: (changes: readonly RepairChange[]) => void;
  /** [0, 1) for the drain back-off jitter; tests pass a fixed one. */
  readonly random?: () => number;
  /** false = serve the API without working the queue (API tests that place entries where they want them). */
  readonly startRunner?: boolean;
  /** false = no scheduled sabakan polls (runAutoRepair still polls); default true when sabakan is configured. */
  readonly startSchedule?: boolean;
  /** Events a subscriber may fall behind before it is closed (default 1,000). */
  readonly subscriptionBufferSize?: number;
  /** Called with every recorded poll outcome (subscriptions hook in here). */
  readonly onOutcome?: (outcome: AutoRepairOutcome) => void;
  /** false = no scheduled cluster generation rounds (template changes and runClusterGeneration still run them). */
  readonly startClusterSchedule?: boolean;
  /** Called with every new cluster generation record. */
  readonly onClusterGeneration?: (record: ClusterGeneration) => void;
}

/**
 * The Kubernetes the config names: a kubeconfig file, or in-cluster credentials when `kubernetes:` has no
 * kubeconfig, or when the section is absent but kintsugi runs in a Pod. Otherwise none. The client library is
 * loaded only then: importing it costs about 25 MB of resident memory (bundled by the build, adapters/kube-client.ts).
 */
async function nodeOperatorFor(config: KintsugiConfig, logger: Logger): Promise<NodeOperator | null> {
  const kubeconfig = config.kubernetes ? config.kubernetes.kubeconfig : process.env["KUBERNETES_SERVICE_HOST"] ? null : undefined;
  if (kubeconfig === undefined) return null;
  const { KubeNodeOperator } = await import("./adapters/kube-node-operator.js");
  const log = logger.child({ component: "kubernetes" });
  return KubeNodeOperator.fromKubeconfig(kubeconfig, config.kubernetes?.timeoutSeconds ?? DEFAULT_KUBERNETES_TIMEOUT_SECONDS, {
    ...(config.kubernetes?.maxResponseBytes !== undefined && { maxResponseBytes: config.kubernetes.maxResponseBytes }),
    ...(config.kubernetes?.watchSeconds !== undefined && { watchSeconds: config.kubernetes.watchSeconds }),
    log: (message) => log.warn(message),
  });
}

/**
 * The composition root: binds the listen address, opens the store (SQLite under its lock, or etcd), builds the
 * events and the API, serves on the address, then takes part in leadership: while this replica leads, a term runs
 * the workers and their schedules over the leader-guarded store (SQLite: from start to close). `close()` stops in the reverse order of effect on the
 * world: the API first (no request can reach a worker any more), then leadership (resigning ends the term: schedules
 * and workers stop, their jobs aborted, and another replica takes over at once), and the store last.
 */
export async function startKintsugi(config: KintsugiConfig, options: StartOptions = {}): Promise<RunningKintsugi> {
  const logger = options.logger ?? pino({ name: "kintsugi" });
  for (const w of options.configWarnings ?? []) logger.warn({ path: w.path }, `config: ${w.path}: ${w.message}`);
  const now = options.now ?? Date.now;
  // Refused before anything is opened: a listener that would serve anyone, or a root field without a role.
  const access = accessPolicyOrRefuse(config.listen.host, config.auth, config.tls !== null);
  const schema = buildSchema();
  assertRoleTableMatches(schema);
  // Bound first: an address in use stops the start before the database is created or etcd is written.
  const address = await reserveListenAddress(config.listen);
  let nodes: NodeOperator | null;
  let backend: Backend;
  try {
    nodes = await nodeOperatorFor(config, logger);
    backend = await openBackend(config, logger);
  } catch (err) {
    await address.release();
    throw err;
  }
  const { store, leadership } = backend;
  const summaries = new RepairSummaries(store.entries, store.finished);
  let terms: LeaderTerms | null = null;
  // One answer to "does this replica lead" for /health, the leader gauge and the API: its term runs and its lease
  // is certainly alive at this instant.
  const leads = () => (terms?.workers() ?? null) !== null && leadership.isLeader();
  let api: Api | null = null;
  let fleetCount: ObservedFleet | null = null;
  // One stop order for close() and for a start that fails halfway: what has not started yet is skipped.
  const stopAll = () =>
    shutDown(
      [
        ["fleet count", () => fleetCount?.stop()],
        ["api", () => api?.close()],
        // Only when the API never took the address over (a start that failed halfway); closing the API closed it.
        ["listener", () => address.release()],
        // The term ends while this replica still leads (its last writes still pass the guard), then it resigns, so
        // a successor never works beside this replica's aborting jobs.
        ["workers", () => terms?.close()],
        ["leadership", () => leadership.stop()],
        ["store", () => backend.close()],
      ],
      logger,
    );
  try {
    const events = buildEvents({
      store,
      now,
      unusedMachines: () => terms?.workers()?.clusterGenerator.unusedMachines() ?? null,
      isLeader: () => leads(),
      integrationVerdict: () => terms?.workers()?.clusterGenerator.integrationVerdict() ?? null,
      hooks: options,
      repairPacing: () => terms?.workers()?.runner.pacingState() ?? null,
    });
    // Told by every call to sabakan and Kubernetes (the workers' and the gateway's); the status page's banner reads it.
    const dependencies = new DependencyMonitor(
      [...(config.sabakan ? (["sabakan"] as const) : []), ...(nodes ? (["kubernetes"] as const) : [])],
      now,
      (status) => events.pubsub.publish("dependencyEvents", status),
    );
    const workerOptions = {
      now,
      random: options.random ?? Math.random,
      nodes: nodes && dependencies.watchingNodes(nodes),
      logger,
      dependencies,
      leads: () => leadership.isLeader(),
      // A restart is another run: a command the last run started is waited out, never taken for this run's own.
      owner: { replica: leadership.replicaName, run: randomBytes(6).toString("hex") },
    };
    const termOptions = {
      startRunner: options.startRunner !== false,
      startSchedule: options.startSchedule !== false,
      startClusterSchedule: options.startClusterSchedule !== false,
    };
    // Each term writes through a store guarded by the election key it began with.
    const leaderTerms = new LeaderTerms(() => beginLeaderTerm(config, leadership.guardedStore(store), events, workerOptions, termOptions, summaries), logger);
    terms = leaderTerms;
    const leader: LeaderAccess = { replicaName: leadership.replicaName, leader: () => leadership.leader(), workers: () => leaderTerms.workers(), leads };
    // Counted before the API serves its first request, so that request is weighed at the real fleet's size.
    fleetCount = await observedFleet(store, config.sabakan && countingClient(config.sabakan), pinoLog(logger.child({ component: "fleet" })));
    const fleet = fleetCount.fleet;
    const context = contextFactory({ config, store, events, leader, now, repairSummaries: summaries, fleet, dependencies });
    const listening = await startApi({ config, address, edge: { schema, access }, store, events, context, leader, logger, fleet });
    api = listening;
    leadership.watch({ elected: () => leaderTerms.elected(), deposed: (reason) => leaderTerms.deposed(reason) });
    leadership.start();
    // The sole leader (SQLite) leads at once: its term is running when start returns, as it always was.
    if (leadership.kind === "sole") await leaderTerms.settled();
    logger.info(
      {
        url: listening.url,
        store: store.backend,
        ...(config.store === "sqlite" ? { database: config.database } : { etcd: config.etcd.endpoints, prefix: config.etcd.prefix }),
        replica: leadership.replicaName,
        version: VERSION,
        kubernetes: nodes !== null,
      },
      "kintsugi started",
    );
    const accessLine = accessLogLine(access);
    logger[accessLine.level](accessLine.fields, accessLine.message);
    return {
      url: listening.url,
      port: listening.port,
      store,
      async close() {
        await stopAll();
        logger.info("kintsugi stopped");
      },
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
