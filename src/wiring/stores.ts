import type { Logger } from "pino";
import { StartRefusedError } from "../auth/access-policy.js";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import { checkConstraints } from "../domain/shared/constraints.js";
import { openSqliteStore } from "../store/kv/sqlite/open-sqlite-store.js";
import type { KintsugiStore } from "../store/store-port.js";
import { pinoLog } from "../support/log.js";
import { soleLeadership, type Leadership } from "./leadership.js";

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
async function refuseContradictingConstraints(backend: Backend, stored: string): Promise<void> {
  const effective = checkConstraints(backend.store.settings.constraints());
  if (effective.ok) return;
  await backend.close();
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
      conversionLog: pinoLog(logger),
      ...(config.pollRecords && { pollRecords: config.pollRecords }),
    });
    const backend: Backend = { store, leadership: soleLeadership(config.leaderElection.replicaName), close: () => store.close() };
    await refuseContradictingConstraints(backend, "stored values");
    const atStart = store.health();
    if (!atStart.healthy) logger.error({ reason: atStart.reason }, "the database cannot be written; GET /health answers 503 until it can");
    return backend;
  }
  // etcd3 and gRPC load only for an etcd store: a SQLite server does without them (about 25 MB of resident memory).
  const { openEtcdBackend } = await import("./etcd-backend.js");
  const backend = await openEtcdBackend(config, logger);
  await refuseContradictingConstraints(backend, "values stored in etcd");
  return backend;
}
