import type { Etcd3 } from "etcd3";
import type { Logger } from "pino";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import { LeaderElection } from "../ha/leader-election.js";
import { etcdClientFor } from "../adapters/etcd-client.js";
import { openEtcdStore } from "../store/kv/etcd/open-etcd-store.js";
import type { WriteGuard } from "../store/store-port.js";
import { pinoLog } from "../support/log.js";
import { termGuard, type Leadership } from "./leadership.js";
import type { Backend } from "./stores.js";

// This module, and through it etcd3, gRPC and protobufjs, is loaded by openBackend only when the store is etcd.

/**
 * Opens the prefix on sabakan's etcd that the config names, shared with the other replicas, which elect a leader
 * there. Closing closes the store (its watch), then the client; the client is closed too when opening fails.
 */
export async function openEtcdBackend(config: KintsugiConfig, logger: Logger): Promise<Backend> {
  const client = etcdClientFor(config.etcd);
  try {
    const log = logger.child({ component: "etcd-store" });
    const store = await openEtcdStore({
      client,
      prefix: config.etcd.prefix,
      initialConstraints: config.constraints,
      timeoutMs: config.etcd.timeoutMs,
      endpoints: config.etcd.endpoints,
      writeLimits: { maxTxnOps: config.etcd.maxTxnOps, maxRequestBytes: config.etcd.maxRequestBytes },
      compaction: { retentionMs: config.etcd.compactionRetentionMs },
      log: pinoLog(log),
      ...(config.pollRecords && { pollRecords: config.pollRecords }),
    });
    return {
      store,
      leadership: electedLeadership(client, config, logger, () => store.health().healthy),
      async close() {
        await store.close();
        client.close();
      },
    };
  } catch (err) {
    client.close();
    throw err;
  }
}

/** One replica among those on one etcd prefix: it leads while it holds the election under `<prefix>leader/`. */
function electedLeadership(client: Etcd3, config: KintsugiConfig, logger: Logger, storeAnswers: () => boolean): Leadership {
  const log = logger.child({ component: "leader-election" });
  const election = new LeaderElection({
    client,
    prefix: config.etcd.prefix,
    replicaName: config.leaderElection.replicaName,
    leaseTtlSeconds: config.leaderElection.leaseTtlSeconds,
    log: pinoLog(log),
  });
  const guard: WriteGuard = election.guard;
  return {
    kind: "elected",
    replicaName: config.leaderElection.replicaName,
    isLeader: () => election.isLeader(),
    // A follower names a leader only while etcd answers it: an old view of the election names nobody.
    leader: () => (election.isLeader() || storeAnswers() ? election.leader() : null),
    guardedStore: (store) => store.guarded(termGuard(guard), config.leaderElection.replicaName),
    watch(listeners) {
      election.onElected(listeners.elected);
      election.onDeposed(listeners.deposed);
    },
    start: () => election.start(),
    stop: () => election.stop(),
  };
}
