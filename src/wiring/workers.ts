import type { Logger } from "pino";
import { ProcessCommandRunner } from "../adapters/command-runner.js";
import type { MachineSource, NodeOperator } from "../adapters/ports.js";
import { SabakanClient } from "../adapters/sabakan-client.js";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import { AutoRepairPoller } from "../runner/auto-repair-poller.js";
import { ClusterGenerator } from "../runner/cluster-generator.js";
import { HealthCheckRunner } from "../runner/health-check-runner.js";
import { RepairRunner } from "../runner/repair-runner.js";
import type { RunnerLog } from "../runner/runner-deps.js";
import type { RepairChange } from "../store/repair-entry-store.js";
import type { EventHooks, Events } from "./events.js";
import type { Stores } from "./stores.js";

/** The components that act on the world: the repair runner, the sabakan poller, health checks, cluster generation. */
export interface Workers {
  readonly runner: RepairRunner;
  readonly autoRepair: AutoRepairPoller;
  readonly healthChecks: HealthCheckRunner;
  readonly clusterGenerator: ClusterGenerator;
  /** Announces changes committed outside the runner (API, poller, health checks) and wakes the runner for them. */
  readonly committedAndWake: (changes: readonly RepairChange[]) => void;
  readonly logs: { readonly autoRepair: RunnerLog; readonly cluster: RunnerLog };
}

export interface WorkerOptions {
  readonly now: () => number;
  readonly random: () => number;
  readonly nodes: NodeOperator | null;
  readonly logger: Logger;
  readonly hooks: EventHooks;
}

/** The runner's small log interface over a pino logger. */
export function runnerLogOf(log: Logger): RunnerLog {
  return {
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, fields) => log.error(fields ?? {}, msg),
  };
}

/** Builds the workers over the stores and events; none starts until told to. */
export function buildWorkers(config: KintsugiConfig, stores: Stores, events: Events, options: WorkerOptions): Workers {
  const { now, nodes, logger, hooks } = options;
  const { entries, settings, outcomes, generations } = stores;
  const log = (component: string) => runnerLogOf(logger.child({ component }));
  const runner = new RepairRunner({
    entries,
    settings,
    repair: config.repair,
    commands: new ProcessCommandRunner(),
    nodes,
    generatedControlPlanes: () => generations.controlPlaneAddresses(),
    now,
    random: options.random,
    log: log("runner"),
    committed: (changes) => events.committed(changes),
    intervalMs: config.runner.intervalSeconds * 1000,
    healthCheckConcurrency: config.runner.healthCheckConcurrency,
  });
  const committedAndWake = (changes: readonly RepairChange[]) => {
    events.committed(changes);
    runner.wake();
  };
  const machines: MachineSource | null = config.sabakan
    ? new SabakanClient({ url: config.sabakan.url, timeoutMs: config.sabakan.timeoutSeconds * 1000, maxResponseBytes: config.sabakan.maxResponseBytes, now })
    : null;
  const autoRepairLog = log("auto-repair");
  const autoRepair = new AutoRepairPoller({
    db: stores.db,
    entries,
    settings,
    outcomes,
    machines,
    nodes,
    now,
    log: autoRepairLog,
    committed: committedAndWake,
    recorded: (outcome, seconds) => {
      events.metrics.polled(outcome, seconds);
      events.pubsub.publish("autoRepairOutcomes", outcome);
      hooks.onOutcome?.(outcome);
    },
    skipped: (reason) => events.metrics.tickSkipped(reason),
  });
  const healthChecks = new HealthCheckRunner({
    checks: config.healthChecks,
    repair: config.repair,
    nodes,
    machines,
    entries,
    settings,
    now,
    log: log("health-checks"),
    intervalMs: config.runner.intervalSeconds * 1000,
    committed: committedAndWake,
    changed: (status) => events.pubsub.publish("healthCheckEvents", status),
  });
  const clusterLog = log("cluster-generation");
  const clusterGenerator = new ClusterGenerator({
    generations,
    settings,
    machines,
    nodes,
    now,
    log: clusterLog,
    recorded: (record) => {
      events.pubsub.publish("clusterGenerated", record);
      hooks.onClusterGeneration?.(record);
    },
  });
  return { runner, autoRepair, healthChecks, clusterGenerator, committedAndWake, logs: { autoRepair: autoRepairLog, cluster: clusterLog } };
}
