import { hostname } from "node:os";
import type { AuthConfig } from "../auth/access-policy.js";
import type { Constraints } from "../domain/shared/constraints.js";
import type { SelectionPolicy } from "../domain/cluster/worker-selection.js";
import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import { EMPTY_REPAIR_CONFIG, type RepairConfig } from "../domain/queue/repair-config.js";
import { DEFAULT_ETCD_CONFIG, DEFAULT_LEASE_TTL_SECONDS, type EtcdConfig, type LeaderElectionConfig, type StoreKind } from "./etcd-config.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";
import type { TlsConfig } from "./tls-files.js";
import { DEFAULT_POLL_RECORDS, type PollRecordsConfig } from "./poll-records-schema.js";

/** The validated configuration of one kintsugi server, with every default applied. */
export interface KintsugiConfig {
  /** host:port of the HTTP server (GraphQL, /health, /version). */
  readonly listen: { readonly host: string; readonly port: number };
  /** Which backend keeps the store: `database` (one machine) or `etcd` (several replicas, one leader). */
  readonly store: StoreKind;
  /** Path of the SQLite database file, created on first start. */
  readonly database: string;
  /** How to reach etcd (with `store: etcd`; always filled in, from its defaults when there is no `etcd` section). */
  readonly etcd: EtcdConfig;
  /** The leader election on etcd (with `store: etcd`). */
  readonly leaderElection: LeaderElectionConfig;
  /** Absent = no sabakan: no auto-repair polling. */
  readonly sabakan: {
    readonly url: string;
    readonly schedule: string;
    /** When cluster generation runs its rounds (cron; default: the same as `schedule`). */
    readonly clusterSchedule?: string;
    /** A poll that gets no full answer within this long fails. */
    readonly timeoutSeconds: number;
    /** A larger answer fails the poll instead of filling memory. */
    readonly maxResponseBytes: number;
    /** The API's fetches from sabakan in flight at once, server-wide (the polls have their own); absent: the default. */
    readonly maxConcurrentRequests?: number;
    /** `worker_selection` and `spare_node_taint_key`: how cluster generation chooses nodes; absent: weighted. */
    readonly selection?: SelectionPolicy;
  } | null;
  /** Absent = in-cluster config if present, else no Kubernetes; limits left out take DEFAULT_KUBERNETES_LIMITS. */
  readonly kubernetes:
    | ({
        readonly kubeconfig: string | null;
        /** Every Kubernetes API request that gets no full answer within this long fails, saying so. */
        readonly timeoutSeconds: number;
      } & Partial<KubernetesLimits>)
    | null;
  readonly repair: RepairConfig;
  /** Node health checks (Cluster API's MachineHealthCheck, for Nodes), remediated through the repair queue. */
  readonly healthChecks: readonly HealthCheckConfig[];
  /**
   * How the repair runner paces itself, and how long past its timeout a command another replica (or an earlier run)
   * started counts as running (`inherited_command_margin_seconds`; absent: the default, see entry-command.ts).
   */
  readonly runner: { readonly intervalSeconds: number; readonly healthCheckConcurrency: number; readonly inheritedCommandMarginSeconds?: number };
  /** Initial values; values set through the API are stored in the database and win over these. */
  readonly constraints: Partial<Constraints>;
  /** What one client may make kintsugi spend (query shape and cost, connections, timeouts). */
  readonly limits: Limits;
  /** How long and how much of the sabakan polls' records (the what-if replay's input) are kept; absent: the defaults. */
  readonly pollRecords?: PollRecordsConfig;
  /** Tokens, what anonymous clients may do, browser origins; null = no `auth` section (loopback listeners only). */
  readonly auth: AuthConfig | null;
  /** HTTPS and WSS instead of HTTP and WS, and client certificates when `clientCaPem` is set; null = plain HTTP. */
  readonly tls: TlsConfig | null;
}

export const DEFAULT_LISTEN = { host: "127.0.0.1", port: 10180 } as const;

/**
 * The longest time, in seconds, a config key may give a timeout or interval: node's timers wait at most 2^31-1 ms
 * (about 24.8 days) and fire at once for anything longer, so a larger value would make every request time out
 * at once instead of never.
 */
export const MAX_TIMER_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/** The message for a value past MAX_TIMER_SECONDS. */
export const TIMER_TOO_LONG = `must be <= ${MAX_TIMER_SECONDS} (about 24.8 days, the longest node's timers wait)`;
export const DEFAULT_DATABASE = "./data/kintsugi.db";
export const DEFAULT_SABAKAN_SCHEDULE = "*/60 * * * * *";
export const DEFAULT_SABAKAN_TIMEOUT_SECONDS = 30;
/** A Kubernetes API request gives up after this long (also for in-cluster credentials without a `kubernetes` section). */
export const DEFAULT_KUBERNETES_TIMEOUT_SECONDS = 10;
/** What a Kubernetes API server may make kintsugi hold or wait for, beside the per-request timeout. */
export interface KubernetesLimits {
  /** The largest answer (a NodeList, a PodList) and the longest watch line read; more fails the call or the watch. */
  readonly maxResponseBytes: number;
  /** A node watch asks the server to end it after this long; one silent for this long plus the timeout is restarted. */
  readonly watchSeconds: number;
}

/** 64 MiB, as for sabakan's answers; a watch of at most 5 minutes (client-go's reflector asks for 5 to 10). */
export const DEFAULT_KUBERNETES_LIMITS: KubernetesLimits = { maxResponseBytes: 64 * 1024 * 1024, watchSeconds: 300 };
/** 64 MiB: sabakan's answer for 10,000 machines is about 10 MB. */
export const DEFAULT_SABAKAN_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** At most 4 API fetches from sabakan at once: each may be a whole fleet (about 10 MB for 10,000 machines). */
export const DEFAULT_SABAKAN_MAX_CONCURRENT_REQUESTS = 4;
/** A pass at least every 10 s; at most 32 health checks at once (child processes that mostly wait on the network). */
export const DEFAULT_RUNNER = { intervalSeconds: 10, healthCheckConcurrency: 32 } as const;

/** The embedded defaults: what `kintsugi serve` runs on without a config file. */
export const DEFAULT_CONFIG: KintsugiConfig = {
  listen: DEFAULT_LISTEN,
  store: "sqlite",
  database: DEFAULT_DATABASE,
  etcd: DEFAULT_ETCD_CONFIG,
  leaderElection: { leaseTtlSeconds: DEFAULT_LEASE_TTL_SECONDS, replicaName: hostname() },
  sabakan: null,
  kubernetes: null,
  repair: EMPTY_REPAIR_CONFIG,
  runner: DEFAULT_RUNNER,
  healthChecks: [],
  constraints: {},
  limits: DEFAULT_LIMITS,
  pollRecords: DEFAULT_POLL_RECORDS,
  auth: null,
  tls: null,
};
