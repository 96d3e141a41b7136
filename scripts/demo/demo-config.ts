import type { KintsugiConfig } from "../../src/config/kintsugi-config.js";
import { DEFAULT_CONFIG } from "../../src/config/kintsugi-config.js";
import { DEFAULT_LIMITS } from "../../src/config/limits.js";
import type { HealthCheckConfig } from "../../src/domain/health/health-check-config.js";
import type { ProofSignal } from "../../src/domain/proof/repair-evidence.js";
import { EMPTY_REPAIR_CONFIG, type RepairOperationConfig } from "../../src/domain/queue/repair-config.js";
import type { DataCenter } from "./data-center.js";
import type { WallTimings } from "./timings.js";

/** What the demo's kintsugi is told besides the data center and the pace. */
export interface DemoConfigFacts {
  readonly port: number;
  readonly databasePath: string;
  /** maximum-unhealthy-machines-per-rack. */
  readonly rackLimit: number;
  /** The sha256 of the demo's admin token. */
  readonly adminTokenSha256: string;
}

/** The operation the health check enqueues: a NotReady node's repair is proven by the node Ready again. */
export const NODE_NOT_READY = "node-not-ready";

/**
 * Two steps, as a real site would write them: a reboot first (it clears most faults), then a power cycle. Each
 * proves its repair by what broke, as the shipped configs do (`success_requires`): a machine sabakan called
 * UNHEALTHY or UNREACHABLE is repaired once sabakan says HEALTHY again, a NotReady node once it is Ready.
 */
function operation(dc: DataCenter, timings: WallTimings, name: string, proof: ProofSignal): RepairOperationConfig {
  return {
    operation: name,
    repairSteps: [
      {
        repairCommand: dc.hardware.command("reboot", timings.seconds("rebootCommandSeconds")),
        commandTimeoutSeconds: 30,
        commandRetries: 1,
        commandInterval: timings.seconds("commandIntervalSeconds"),
        needDrain: true,
        watchSeconds: timings.seconds("rebootWatchSeconds"),
      },
      {
        repairCommand: dc.hardware.command("repair", timings.seconds("repairCommandSeconds")),
        commandTimeoutSeconds: 30,
        commandRetries: 1,
        commandInterval: timings.seconds("commandIntervalSeconds"),
        needDrain: false,
        watchSeconds: timings.seconds("watchSeconds"),
      },
    ],
    healthCheckCommand: dc.hardware.command("health"),
    commandTimeoutSeconds: 10,
    successCommand: null,
    successCommandTimeout: 30,
    successProof: { requires: [proof], dwellSeconds: 0 },
  };
}

/** The demo's kintsugi: sabakan and Kubernetes of the data center, its repair procedure, health check and limits. */
export function demoConfig(dc: DataCenter, timings: WallTimings, facts: DemoConfigFacts): KintsugiConfig {
  // MachineHealthCheck's rule on the nodes: NotReady for longer than the timeout enqueues the machine, unless 40% of
  // the nodes are (a cluster-wide problem is no machine's fault).
  const nodeReady: HealthCheckConfig = {
    name: "node-ready",
    selector: { matchExpressions: [{ key: "kubernetes.io/hostname", operator: "Exists" }] },
    unhealthyConditions: [{ type: "Ready", status: "False", timeoutSeconds: timings.seconds("nodeNotReadyTimeoutSeconds") }],
    maxUnhealthy: { kind: "percent", value: 40 },
    unhealthyRange: null,
    operation: NODE_NOT_READY,
    machineType: { from: "sabakan" },
    paused: false,
  };
  return {
    ...DEFAULT_CONFIG,
    listen: { host: "127.0.0.1", port: facts.port },
    database: facts.databasePath,
    sabakan: { url: dc.sabakan.url, schedule: timings.sabakanSchedule, timeoutSeconds: 10, maxResponseBytes: 16 << 20 },
    kubernetes: { kubeconfig: dc.kube.kubeconfigPath, timeoutSeconds: 10 },
    repair: {
      ...EMPTY_REPAIR_CONFIG,
      // Well above what pacing lets through in a rack whose last repair failed: there, pacing is the limit one sees.
      maxConcurrentRepairs: 8,
      repairProcedures: [
        {
          machineTypes: ["IPMI-2.0"],
          repairOperations: [
            operation(dc, timings, "unhealthy", "sabakan_healthy"),
            operation(dc, timings, "unreachable", "sabakan_healthy"),
            operation(dc, timings, NODE_NOT_READY, "node_ready"),
          ],
        },
      ],
      // Slow start per rack: one repair in progress per rack until repairs there are proven, and again after a failure.
      pacing: { domains: ["rack"] },
      // A machine repaired twice within the window is held for a person instead of repaired a third time.
      escalation: { maxRepairs: 2, windowSeconds: timings.seconds("escalationWindowSeconds"), operation: null },
    },
    runner: { intervalSeconds: timings.seconds("runnerIntervalSeconds"), healthCheckConcurrency: 32 },
    healthChecks: [nodeReady],
    limits: DEFAULT_LIMITS,
    constraints: {
      maximumRepairQueueEntries: 12,
      maximumUnhealthyMachinesPerRack: facts.rackLimit,
      waitSecondsToRepairRebooting: 0,
      controlPlaneCount: 3,
      minimumWorkers: 12,
    },
    // As on loopback without an auth section, clients without a token (the browser, the CLI) act as operators; the
    // demo itself sets the cluster template, an admin's change, with a token of its own.
    auth: { anonymous: "operator", tokens: [{ name: "demo", role: "admin", sha256: facts.adminTokenSha256 }], allowedOrigins: [], allowedHosts: [] },
    tls: null,
  };
}
