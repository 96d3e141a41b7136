import type { Logger } from "pino";
import { ProcessCommandRunner } from "../adapters/command-runner.js";
import type { MachineSource, NodeOperator } from "../adapters/ports.js";
import { SabakanClient } from "../adapters/sabakan-client.js";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import { AutoRepairPoller } from "../runner/auto-repair-poller.js";
import { BmcDirectory } from "../runner/bmc-directory.js";
import { ClusterGenerator } from "../runner/cluster-generator.js";
import type { DependencyMonitor } from "../runner/dependency-monitor.js";
import { HealthCheckRunner } from "../runner/health-check-runner.js";
import { seededLedger, type PacingLedger } from "../runner/pacing-ledger.js";
import { RackDirectory } from "../runner/rack-directory.js";
import { RepairRunner } from "../runner/repair-runner.js";
import { fencedCommands } from "../runner/fenced-commands.js";
import { pinoLog, type Log } from "../support/log.js";
import { RUNNER_ACTOR } from "../domain/queue/repair-history.js";
import { DEFAULT_INHERITED_COMMAND_MARGIN_SECONDS, type CommandOwner } from "../domain/queue/command-marker.js";
import type { KintsugiStore, StoreCommit } from "../store/store-port.js";
import type { Events } from "./events.js";

/** The components that act on the world: the repair runner, the sabakan poller, health checks, cluster generation. */
export interface Workers {
  readonly runner: RepairRunner;
  readonly autoRepair: AutoRepairPoller;
  readonly healthChecks: HealthCheckRunner;
  readonly clusterGenerator: ClusterGenerator;
  readonly logs: { readonly autoRepair: Log; readonly cluster: Log; readonly stats: Log };
  /** The finished outcomes pacing reads; the term feeds it every commit. */
  readonly pacingLedger: PacingLedger;
}

export interface WorkerOptions {
  readonly now: () => number;
  readonly random: () => number;
  readonly nodes: NodeOperator | null;
  readonly logger: Logger;
  /** Where every sabakan call's outcome is told (the status page's outage banner reads it); none when absent. */
  readonly dependencies?: DependencyMonitor;
  /** Whether this replica leads at this instant: no command starts when it does not. Absent: always. */
  readonly leads?: () => boolean;
  /** This process, as its commands are marked in the store (see entry-command.ts); absent: not marked. */
  readonly owner?: CommandOwner;
}

/**
 * Whether a commit gives the runner something to look at: a change of an entry or a machine hold made by anyone but
 * the runner (the API, the poller, a health check) or of a setting other than the published waits. The runner's own
 * commits do not wake it: it acts on them in the pass that made them, and its jobs wake it when they end.
 */
export function wakesRunner(commit: StoreCommit): boolean {
  const holds = commit.holds ?? [];
  // The published waits are the runner's own output: a pass that stores them must not cause another.
  return (
    commit.settings.some((key) => key !== "repair-waits") ||
    commit.entries.some((c) => c.record.actor !== RUNNER_ACTOR) ||
    holds.some((c) => c.actor !== RUNNER_ACTOR)
  );
}

/** Builds the workers over the store (the leader-guarded one) and events; none starts until told to. */
export function buildWorkers(config: KintsugiConfig, store: KintsugiStore, events: Events, options: WorkerOptions): Workers {
  const { now, nodes, logger } = options;
  const { entries, settings, generations } = store;
  const log = (component: string) => pinoLog(logger.child({ component }));
  // Pacing's memory: the outcomes (seeded from the queue and the kept finished repairs, so a new or restarted leader
  // paces as the old one did, then fed every commit by the term) and every sabakan answer's racks.
  const racks = new RackDirectory();
  const ledger = seededLedger(store);
  // Every sabakan answer's BMCs too, which repair commands and health checks get in their environment.
  const bmcs = new BmcDirectory();
  const sabakan = config.sabakan
    ? new SabakanClient({ url: config.sabakan.url, timeoutMs: config.sabakan.timeoutSeconds * 1000, maxResponseBytes: config.sabakan.maxResponseBytes, now })
    : null;
  const machines: MachineSource | null = sabakan ? bmcs.recording(racks.recording(options.dependencies?.watchingMachines(sabakan) ?? sabakan)) : null;
  const runnerLog = log("runner");
  const runner = new RepairRunner({
    entries,
    settings,
    holds: store.holds,
    repair: config.repair,
    commands: fencedCommands(new ProcessCommandRunner({ warn: (message, fields) => runnerLog.warn(message, fields) }), options.leads ?? (() => true)),
    nodes,
    generatedControlPlanes: () => generations.controlPlaneAddresses(),
    now,
    random: options.random,
    log: runnerLog,
    intervalMs: config.runner.intervalSeconds * 1000,
    healthCheckConcurrency: config.runner.healthCheckConcurrency,
    pacing: { ledger, racks },
    machines,
    bmcs,
    ...(options.owner && {
      fence: { owner: options.owner, marginSeconds: config.runner.inheritedCommandMarginSeconds ?? DEFAULT_INHERITED_COMMAND_MARGIN_SECONDS },
    }),
  });
  const autoRepairLog = log("auto-repair");
  const autoRepair = new AutoRepairPoller({
    store,
    repair: config.repair,
    machines,
    nodes,
    now,
    log: autoRepairLog,
    recorded: (outcome, seconds) => events.metrics.polled(outcome, seconds),
    skipped: (reason) => events.metrics.tickSkipped(reason),
  });
  const healthChecks = new HealthCheckRunner({
    checks: config.healthChecks,
    repair: config.repair,
    nodes,
    machines,
    store,
    now,
    log: log("health-checks"),
    intervalMs: config.runner.intervalSeconds * 1000,
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
    ...(config.sabakan?.selection !== undefined && { policy: config.sabakan.selection }),
  });
  return {
    runner,
    autoRepair,
    healthChecks,
    clusterGenerator,
    logs: { autoRepair: autoRepairLog, cluster: clusterLog, stats: log("repair-stats") },
    pacingLedger: ledger,
  };
}
