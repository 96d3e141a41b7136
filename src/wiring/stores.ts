import type { Logger } from "pino";
import { StartRefusedError } from "../auth/access-policy.js";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import { checkConstraints } from "../domain/constraints.js";
import { etcdClientFor } from "../store/etcd/etcd-client.js";
import { openEtcdStore } from "../store/etcd/open-etcd-store.js";
import { openSqliteStore } from "../store/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../store/store-port.js";
import { pinoLog } from "../support/log.js";
import { electedLeadership, soleLeadership, type Leadership } from "./leadership.js";

/** The store the config names, who leads on it, and how to let go of both. */
export interface Backend {
  readonly store: KintsugiStore;
  readonly leadership: Leadership;
  /** Closes the store (SQLite: the file and its lock; etcd: the watch, then the client); the last step of shutdown. */
  close(): Promise<void>;
}

/**
 * Refuses to start (closing the store) when the config file's constraints and those set through the API, laid over
 * them, contradict each other: the limits that keep a rack failure from becoming a repair storm must be coherent.
 */
async function refuseContradictingConstraints(store: KintsugiStore, stored: string): Promise<void> {
  const effective = checkConstraints(store.settings.constraints());
  if (effective.ok) return;
  await store.close();
  throw new StartRefusedError(`constraints (config file and ${stored} together): ${effective.message}`);
}

/**
 * Opens the store the config names. `sqlite`: the file at `database`, held by this process alone, which leads from
 * start to close. `etcd`: the prefix on sabakan's etcd, shared with the other replicas, which elect a leader there.
 */
export async function openBackend(config: KintsugiConfig, logger: Logger): Promise<Backend> {
  if (config.store === "sqlite") {
    const store = await openSqliteStore({
      path: config.database,
      initialConstraints: config.constraints,
      ...(config.pollRecords && { pollRecords: config.pollRecords }),
    });
    await refuseContradictingConstraints(store, "stored values");
    const atStart = store.health();
    if (!atStart.healthy) logger.error({ reason: atStart.reason }, "the database cannot be written; GET /health answers 503 until it can");
    return { store, leadership: soleLeadership(config.leaderElection.replicaName), close: () => store.close() };
  }
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
    await refuseContradictingConstraints(store, "values stored in etcd");
    return {
      store,
      leadership: electedLeadership(client, config, logger),
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
