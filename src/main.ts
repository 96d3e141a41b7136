import type { AddressInfo } from "node:net";
import { pino, type Logger } from "pino";
import { DEFAULT_KUBERNETES_TIMEOUT_SECONDS, type KintsugiConfig } from "./config/kintsugi-config.js";
import { checkConstraints } from "./domain/constraints.js";
import type { GraphQLContext } from "./graphql/context.js";
import { createHttpServer } from "./graphql/http-server.js";
import { buildSchema } from "./graphql/schema.js";
import { openDatabase } from "./store/database.js";
import { RepairEntryStore, type RepairChange } from "./store/repair-entry-store.js";
import { SettingsStore } from "./store/settings-store.js";
import { ProcessCommandRunner } from "./adapters/command-runner.js";
import type { NodeOperator } from "./adapters/ports.js";
import { RepairRunner } from "./runner/repair-runner.js";
import { HealthCheckRunner } from "./runner/health-check-runner.js";
import type { RunnerLog } from "./runner/runner-deps.js";
import { SabakanClient } from "./adapters/sabakan-client.js";
import { AutoRepairPoller } from "./runner/auto-repair-poller.js";
import { scheduleTicks } from "./runner/cron-schedule.js";
import { AutoRepairOutcomeStore } from "./store/auto-repair-outcome-store.js";
import type { AutoRepairOutcome } from "./domain/auto-repair-outcome.js";
import { SabakanGatewayClient } from "./adapters/sabakan-gateway-client.js";
import { MachineByAddressLoader } from "./gateway/machine-loader.js";
import { PubSub } from "./graphql/pubsub.js";
import { KintsugiMetrics } from "./graphql/metrics.js";
import { graphiqlRoutes } from "./graphql/graphiql-routes.js";
import { TOPIC_NAMES, type Topics } from "./graphql/topics.js";
import { VERSION } from "./version.js";
import { ClusterGenerationStore } from "./store/cluster-generation-store.js";
import { ClusterGenerator } from "./runner/cluster-generator.js";
import type { ClusterGeneration } from "./domain/cluster/generation-record.js";
import { accessLogLine, accessPolicyOrRefuse } from "./auth/access-policy.js";
import { EdgeGuard } from "./auth/edge-guard.js";
import { assertRoleTableMatches } from "./auth/operation-roles.js";
import type { Actor } from "./auth/roles.js";

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
  /** Called after each committed change (subscriptions hook in here). */
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

/** The runner's small log interface over a pino logger. */
function runnerLogOf(log: Logger): RunnerLog {
  return {
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
  };
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

/** The composition root: opens the database, wires stores, schema and HTTP server, and starts listening. */
export async function startKintsugi(config: KintsugiConfig, options: StartOptions = {}): Promise<RunningKintsugi> {
  const logger = options.logger ?? pino({ name: "kintsugi" });
  const access = accessPolicyOrRefuse(config.listen.host, config.auth);
  const schema = buildSchema();
  assertRoleTableMatches(schema);
  const nodes = await nodeOperatorFor(config);
  const db = openDatabase(config.database);
  try {
    const settings = new SettingsStore(db, config.constraints);
    const effective = checkConstraints(settings.constraints());
    if (!effective.ok) throw new Error(`constraints (config file and stored values together): ${effective.message}`);
    const entries = new RepairEntryStore(db);
    const now = options.now ?? Date.now;
    const pubsub = new PubSub<Topics>(options.subscriptionBufferSize);
    const generations = new ClusterGenerationStore(db);
    const metrics = new KintsugiMetrics({
      entries: () => entries.list(),
      repairQueueEnabled: () => settings.repairQueueEnabled(),
      autoRepairEnabled: () => settings.autoRepairEnabled(),
      now,
      clusterGeneration: () => ({ current: generations.current(), latest: generations.latest() }),
      // Declared below; read only at scrape time, once the server listens.
      unusedMachines: () => clusterGenerator.unusedMachines(),
      subscriptions: () => new Map(TOPIC_NAMES.map((topic) => [topic, pubsub.count(topic)])),
    });
    const committed = (changes: readonly RepairChange[]) => {
      metrics.committed(changes);
      for (const change of changes) pubsub.publish("repairEntryEvents", change);
      options.onCommitted?.(changes);
    };
    const runnerLog = runnerLogOf(logger.child({ component: "runner" }));
    const runner = new RepairRunner({
      entries,
      settings,
      repair: config.repair,
      commands: new ProcessCommandRunner(),
      nodes,
      generatedControlPlanes: () => generations.controlPlaneAddresses(),
      now,
      random: options.random ?? Math.random,
      log: runnerLog,
      committed,
      intervalMs: config.runner.intervalSeconds * 1000,
      healthCheckConcurrency: config.runner.healthCheckConcurrency,
    });
    const outcomes = new AutoRepairOutcomeStore(db);
    const machines = config.sabakan
      ? new SabakanClient({ url: config.sabakan.url, timeoutMs: config.sabakan.timeoutSeconds * 1000, maxResponseBytes: config.sabakan.maxResponseBytes, now })
      : null;
    const pollerLog = runnerLogOf(logger.child({ component: "auto-repair" }));
    const autoRepair = new AutoRepairPoller({
      db,
      entries,
      settings,
      outcomes,
      machines,
      nodes,
      now,
      log: pollerLog,
      committed: (changes) => {
        committed(changes);
        runner.wake();
      },
      recorded: (outcome, seconds) => {
        metrics.polled(outcome, seconds);
        pubsub.publish("autoRepairOutcomes", outcome);
        options.onOutcome?.(outcome);
      },
    });
    const sabakan = config.sabakan
      ? new SabakanGatewayClient({ url: config.sabakan.url, timeoutMs: config.sabakan.timeoutSeconds * 1000, maxResponseBytes: config.sabakan.maxResponseBytes })
      : null;
    const healthChecks = new HealthCheckRunner({
      checks: config.healthChecks,
      repair: config.repair,
      nodes,
      machines,
      entries,
      settings,
      now,
      log: runnerLogOf(logger.child({ component: "health-checks" })),
      intervalMs: config.runner.intervalSeconds * 1000,
      committed: (changes) => {
        committed(changes);
        runner.wake();
      },
      changed: (status) => pubsub.publish("healthCheckEvents", status),
    });
    const clusterLog = runnerLogOf(logger.child({ component: "cluster-generation" }));
    const clusterGenerator = new ClusterGenerator({
      generations,
      settings,
      machines,
      nodes,
      now,
      log: clusterLog,
      recorded: (record) => {
        pubsub.publish("clusterGenerated", record);
        options.onClusterGeneration?.(record);
      },
    });
    const createContext = (actor: Actor): GraphQLContext => ({
      actor,
      entries,
      settings,
      outcomes,
      autoRepair,
      config,
      now,
      committed: (changes) => {
        committed(changes);
        runner.wake();
      },
      sabakan,
      machines: sabakan ? new MachineByAddressLoader(sabakan) : null,
      pubsub,
      healthChecks,
      generations,
      clusterGenerator,
      waitReason: (index) => runner.waitReason(index),
      machineStateChanged: (change) => {
        pubsub.publish("machineStateChanged", change);
        if (change.state === "UNHEALTHY" || change.state === "UNREACHABLE") {
          autoRepair.runAfterEvent().catch((err: unknown) => pollerLog.error("event-driven auto-repair failed", { err: (err as Error).message }));
        }
        // A retiring machine's taint, an unhealthy control plane's replacement: no need to wait for the schedule.
        clusterGenerator.request("event");
      },
    });
    const healthProbe = db.prepare("SELECT 1");
    const { server, apollo, closeSubscriptions } = await createHttpServer({
      schema,
      context: createContext,
      guard: new EdgeGuard(access),
      routeRoles: { "/metrics": "viewer" },
      version: VERSION,
      healthCheck: () => healthProbe.get(),
      logError: (err) => logger.error({ err }, "unexpected error"),
      routes: { ...graphiqlRoutes(), "/metrics": () => metrics.text() },
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.listen.port, config.listen.host, () => {
        server.off("error", reject);
        resolve();
      });
    });
    if (options.startRunner !== false) {
      runner.start();
      healthChecks.start();
    }
    const schedule =
      config.sabakan && options.startSchedule !== false
        ? scheduleTicks("auto-repair", config.sabakan.schedule, autoRepair, pollerLog)
        : null;
    const clusterSchedule =
      config.sabakan && options.startClusterSchedule !== false
        ? scheduleTicks("cluster-generation", config.sabakan.clusterSchedule ?? config.sabakan.schedule, clusterGenerator, clusterLog)
        : null;
    const { port } = server.address() as AddressInfo;
    const host = config.listen.host.includes(":") ? `[${config.listen.host}]` : config.listen.host;
    const url = `http://${host}:${port}`;
    logger.info({ url, database: config.database, version: VERSION, kubernetes: nodes !== null }, "kintsugi started");
    const accessLine = accessLogLine(access);
    logger[accessLine.level](accessLine.fields, accessLine.message);
    return {
      url,
      port,
      async close() {
        await closeSubscriptions();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
        });
        await schedule?.stop();
        await clusterSchedule?.stop();
        // Side by side: each is bounded by a timeout (or aborted), and shutdown waits for the longest, not their sum.
        await Promise.all([clusterGenerator.stop(), autoRepair.stop(), healthChecks.stop(), runner.stop()]);
        await apollo.stop();
        db.close();
        logger.info("kintsugi stopped");
      },
    };
  } catch (err) {
    db.close();
    throw err;
  }
}
