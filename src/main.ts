import { pino, type Logger } from "pino";
import type { NodeOperator } from "./adapters/ports.js";
import { DEFAULT_KUBERNETES_TIMEOUT_SECONDS, type KintsugiConfig } from "./config/kintsugi-config.js";
import type { AutoRepairOutcome } from "./domain/auto-repair-outcome.js";
import type { ClusterGeneration } from "./domain/cluster/generation-record.js";
import { accessLogLine, accessPolicyOrRefuse } from "./auth/access-policy.js";
import { assertRoleTableMatches } from "./auth/operation-roles.js";
import { buildSchema } from "./graphql/schema.js";
import { scheduleTicks } from "./runner/cron-schedule.js";
import type { RepairChange } from "./store/store-port.js";
import { VERSION } from "./version.js";
import { contextFactory, startApi, type Api } from "./wiring/api.js";
import { buildEvents } from "./wiring/events.js";
import { shutDown } from "./wiring/shutdown.js";
import { openStore } from "./wiring/stores.js";
import { buildWorkers, type Workers } from "./wiring/workers.js";

/** A started kintsugi: where it listens, and how to stop it. */
export interface RunningKintsugi {
  /** Base URL, e.g. http://127.0.0.1:10180 (GraphQL at `${url}/graphql`). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting requests, waits for the ones in flight, and closes the database. */
  close(): Promise<void>;
}

export interface StartOptions {
  readonly logger?: Logger;
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
 * loaded only then: importing it costs about 60 MB of resident memory.
 */
async function nodeOperatorFor(config: KintsugiConfig): Promise<NodeOperator | null> {
  const kubeconfig = config.kubernetes ? config.kubernetes.kubeconfig : process.env["KUBERNETES_SERVICE_HOST"] ? null : undefined;
  if (kubeconfig === undefined) return null;
  const { KubeNodeOperator } = await import("./adapters/kube-node-operator.js");
  return KubeNodeOperator.fromKubeconfig(kubeconfig, config.kubernetes?.timeoutSeconds ?? DEFAULT_KUBERNETES_TIMEOUT_SECONDS);
}

/**
 * The composition root: opens the store (the database, under its lock), builds the events, workers and API, starts
 * listening, then starts the workers and schedules. `close()` stops them in the reverse order of their effect on the
 * world: the API first (no request can wake a worker any more), then the schedules (no new ticks), then the workers
 * side by side (each bounded by a timeout or aborted, so shutdown waits for the longest, not their sum), and the
 * database last (nothing writes any more).
 */
export async function startKintsugi(config: KintsugiConfig, options: StartOptions = {}): Promise<RunningKintsugi> {
  const logger = options.logger ?? pino({ name: "kintsugi" });
  const now = options.now ?? Date.now;
  // Refused before anything is opened: a listener that would serve anyone, or a root field without a role.
  const access = accessPolicyOrRefuse(config.listen.host, config.auth, config.tls !== null);
  const schema = buildSchema();
  assertRoleTableMatches(schema);
  const nodes = await nodeOperatorFor(config);
  const store = await openStore(config, logger);
  let workers: Workers | null = null;
  let api: Api | null = null;
  let schedules: ReadonlyArray<{ stop(): Promise<void> } | null> = [];
  // One stop order for close() and for a start that fails halfway: what has not started yet is skipped.
  const stopAll = () =>
    shutDown(
      [
        ["api", () => api?.close()],
        ["schedules", () => Promise.all(schedules.map((s) => s?.stop()))],
        ["workers", () => (workers ? Promise.all([workers.clusterGenerator.stop(), workers.autoRepair.stop(), workers.healthChecks.stop(), workers.runner.stop()]) : undefined)],
        ["database", () => store.close()],
      ],
      logger,
    );
  try {
    const events = buildEvents(store, now, () => workers?.clusterGenerator.unusedMachines() ?? null, options);
    const built = buildWorkers(config, store, events, { now, random: options.random ?? Math.random, nodes, logger });
    workers = built;
    const listening = await startApi(config, { schema, access }, store, events, contextFactory(config, store, events, built, now), logger);
    api = listening;
    if (options.startRunner !== false) {
      built.runner.start();
      built.healthChecks.start();
    }
    schedules = [
      config.sabakan && options.startSchedule !== false ? scheduleTicks("auto-repair", config.sabakan.schedule, built.autoRepair, built.logs.autoRepair) : null,
      config.sabakan && options.startClusterSchedule !== false
        ? scheduleTicks("cluster-generation", config.sabakan.clusterSchedule ?? config.sabakan.schedule, built.clusterGenerator, built.logs.cluster)
        : null,
    ];
    logger.info({ url: listening.url, database: config.database, version: VERSION, kubernetes: nodes !== null }, "kintsugi started");
    const accessLine = accessLogLine(access);
    logger[accessLine.level](accessLine.fields, accessLine.message);
    return {
      url: listening.url,
      port: listening.port,
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
