import type { EtcdConfig } from "../../src/config/etcd-config.js";
import type { KintsugiConfig } from "../../src/config/kintsugi-config.js";
import { DEFAULT_ETCD_CONFIG } from "../../src/config/etcd-config.js";
import type { RepairConfig } from "../../src/domain/queue/repair-config.js";
import { startTestKintsugi, type TestKintsugi } from "./kintsugi-server.js";
import type { TestEtcd } from "./test-etcd.js";
import { until } from "./until.js";

/** What GET /health of a replica answers: the status code and the body's fields. */
export interface ReplicaHealth {
  readonly code: number;
  readonly status: string;
  readonly reason?: string;
  readonly store: string;
  readonly replica: string;
  readonly leader: boolean;
  readonly leaderName: string | null;
}

/** GET /health of the kintsugi at `url`; fails when it does not answer within `timeoutMs`. */
export async function replicaHealth(url: string, timeoutMs = 5000): Promise<ReplicaHealth> {
  const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(timeoutMs) });
  return { code: res.status, ...((await res.json()) as Omit<ReplicaHealth, "code">) };
}

/** {@link replicaHealth}, or null while the replica does not answer within 2 s (a killed or restarting process). */
export async function replicaHealthIfUp(url: string): Promise<ReplicaHealth | null> {
  try {
    return await replicaHealth(url, 2000);
  } catch {
    return null;
  }
}

/**
 * Waits until exactly one of the replicas at `urls` says it leads (those that do not answer count as followers);
 * returns every answer and the leader's position in `urls`.
 */
export async function untilOneLeads(urls: readonly string[], timeoutMs?: number): Promise<{ healths: Array<ReplicaHealth | null>; leaderAt: number }> {
  const healths = await until(
    "exactly one replica leads",
    () => Promise.all(urls.map(replicaHealthIfUp)),
    (hs) => hs.filter((h) => h?.leader).length === 1,
    timeoutMs,
  );
  return { healths, leaderAt: healths.findIndex((h) => h?.leader) };
}

/** How {@link startEtcdReplicas} configures each replica. */
export interface EtcdReplicaOptions {
  /** The key prefix every replica shares (one per test file, so files never meet in the same etcd). */
  readonly prefix: string;
  readonly leaseTtlSeconds: number;
  /** The repair procedures of the replica of that name. */
  readonly repair: (name: string) => RepairConfig;
  /** Other etcd settings, e.g. a shorter `timeoutMs`. */
  readonly etcd?: Partial<EtcdConfig>;
  /** Other settings every replica shares, e.g. the sabakan to poll. */
  readonly config?: Partial<KintsugiConfig>;
  /** The margin past its timeout an inherited command is waited out (see entry-command.ts); default: the default. */
  readonly inheritedCommandMarginSeconds?: number;
}

/**
 * Starts one in-process kintsugi per name on `etcd`, all under one prefix, each with its runner (every 0.2 s) and
 * none of the schedules. Dispose of them in an `after` hook (those started before a failed start are disposed of here).
 */
export async function startEtcdReplicas(etcd: TestEtcd, names: readonly string[], options: EtcdReplicaOptions): Promise<TestKintsugi[]> {
  const replicas: TestKintsugi[] = [];
  try {
    for (const name of names) {
      replicas.push(
        await startTestKintsugi(
          {
            ...options.config,
            store: "etcd",
            etcd: { ...DEFAULT_ETCD_CONFIG, ...options.etcd, endpoints: [...etcd.endpoints], prefix: options.prefix },
            leaderElection: { leaseTtlSeconds: options.leaseTtlSeconds, replicaName: name },
            repair: options.repair(name),
            runner: {
              intervalSeconds: 0.2,
              healthCheckConcurrency: 4,
              ...(options.inheritedCommandMarginSeconds !== undefined && { inheritedCommandMarginSeconds: options.inheritedCommandMarginSeconds }),
            },
          },
          { startRunner: true, startSchedule: false, startClusterSchedule: false },
        ),
      );
    }
  } catch (err) {
    await Promise.all(replicas.map((r) => r.dispose()));
    throw err;
  }
  return replicas;
}
