/** PEM material given as a file to read (`tls-ca-file`) or inline in the config (`tls-ca`), as etcdutil allows. */
export type PemSource = { readonly file: string } | { readonly pem: string };

/**
 * How to reach etcd: cybozu-go/etcdutil's `Config` (what sabakan and CKE read), validated. Files are read when the
 * client is built (see `etcdClientFor`), not when the config is loaded.
 */
export interface EtcdConfig {
  /** Client URLs of the etcd members, as `scheme://host:port` (all http or all https). */
  readonly endpoints: readonly string[];
  /** Every key kintsugi writes starts with this; starts and ends with "/". */
  readonly prefix: string;
  /** Every etcd call that gets no answer within this long fails (etcdutil's `timeout`), in milliseconds. */
  readonly timeoutMs: number;
  /** etcd's `--max-txn-ops` and `--max-request-bytes` (not etcdutil's keys): writes are split into parts that fit them. */
  readonly maxTxnOps: number;
  readonly maxRequestBytes: number;
  /**
   * How much history kintsugi keeps when it compacts etcd's old revisions itself, in milliseconds; 0 = kintsugi does
   * not compact (the etcd members' `--auto-compaction-*` flags or another client do). See EtcdCompaction.
   */
  readonly compactionRetentionMs: number;
  /** User name and password authentication; null = none. Set together or not at all. */
  readonly auth: { readonly username: string; readonly password: string } | null;
  /** The CA that signed the etcd servers' certificates; null = the system's CAs (for https endpoints). */
  readonly tlsCa: PemSource | null;
  /** A client certificate and its key, for etcd's certificate authentication; null = none. */
  readonly tlsClient: { readonly cert: PemSource; readonly key: PemSource } | null;
}

/** etcdutil's defaults, except the prefix (etcdutil has none; sabakan uses /sabakan/, CKE /cke/). */
export const DEFAULT_ETCD_ENDPOINTS: readonly string[] = ["http://127.0.0.1:2379"];
export const DEFAULT_ETCD_PREFIX = "/kintsugi/";
export const DEFAULT_ETCD_TIMEOUT = "2s";
export const DEFAULT_ETCD_TIMEOUT_MS = 2000;
/** etcd's own defaults for `--max-txn-ops` and `--max-request-bytes` (1.5 MiB). */
export const DEFAULT_ETCD_MAX_TXN_OPS = 128;
export const DEFAULT_ETCD_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;
/**
 * A day, as neco runs the boot servers' etcd (`auto-compaction-mode: periodic`, `auto-compaction-retention: "24"`):
 * there kintsugi's compaction only ever asks for what etcd already did (a refusal it ignores), so it never shortens
 * the history sabakan and CKE share; on an etcd that compacts nothing it keeps a day's revisions, not all of them.
 */
export const DEFAULT_ETCD_COMPACTION_RETENTION = "24h";
export const DEFAULT_ETCD_COMPACTION_RETENTION_MS = 24 * 3_600_000;
/** The bounds of `compaction-retention` when it is on: shorter breaks a replica's watch over a brief outage, longer keeps too much. */
export const ETCD_COMPACTION_RETENTION_BOUNDS_MS = { min: 5 * 60_000, max: 30 * 24 * 3_600_000 } as const;

export const DEFAULT_ETCD_CONFIG: EtcdConfig = {
  endpoints: DEFAULT_ETCD_ENDPOINTS,
  prefix: DEFAULT_ETCD_PREFIX,
  timeoutMs: DEFAULT_ETCD_TIMEOUT_MS,
  maxTxnOps: DEFAULT_ETCD_MAX_TXN_OPS,
  maxRequestBytes: DEFAULT_ETCD_MAX_REQUEST_BYTES,
  compactionRetentionMs: DEFAULT_ETCD_COMPACTION_RETENTION_MS,
  auth: null,
  tlsCa: null,
  tlsClient: null,
};

/** Where the store lives: one SQLite file (`database`), or etcd (`etcd`) shared by several replicas. */
export type StoreKind = "sqlite" | "etcd";

/** kintsugi's own knobs of the leader election on etcd (not etcdutil's). */
export interface LeaderElectionConfig {
  /** The TTL of the lease this replica's election key is attached to: how long a dead leader blocks a successor. */
  readonly leaseTtlSeconds: number;
  /** Who this replica is, as shown where the leader is named (/health, errors); default: the host name. */
  readonly replicaName: string;
}

export const DEFAULT_LEASE_TTL_SECONDS = 10;
export const LEASE_TTL_BOUNDS = { min: 2, max: 300 } as const;
