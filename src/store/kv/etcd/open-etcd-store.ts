import type { Etcd3 } from "etcd3";
import type { Constraints } from "../../../domain/shared/constraints.js";
import type { KintsugiStore } from "../../store-port.js";
import { EtcdKvDriver } from "./etcd-kv-driver.js";
import { EtcdCompaction } from "./etcd-compaction.js";
import { checkEtcdCompaction } from "./etcd-compaction-check.js";
import { StoreKeys } from "../../core/store-keys.js";
import type { PollRecordsConfig } from "../../../config/poll-records-schema.js";
import { checkedLimits, type StoreWriteLimits } from "../../core/write-limits.js";
import { openStoreCore } from "../../core/open-store-core.js";
import { etcdAccess } from "../../copy/etcd-snapshot-access.js";
import { SILENT_LOG, type Log } from "../../../support/log.js";

export interface EtcdStoreOptions {
  /** The caller's client (it owns it: `close()` leaves it open). */
  readonly client: Etcd3;
  /** Where the store's keys live, e.g. `/kintsugi/`; must end with "/". */
  readonly prefix: string;
  /** The config file's constraints, applied where none was set through the API. */
  readonly initialConstraints?: Partial<Constraints>;
  readonly log?: Log;
  /** The deadline of every etcd call (etcdutil's `timeout`); default 2000. */
  readonly timeoutMs?: number;
  /** The endpoints the client talks to, named in errors (etcdutil's `endpoints`). */
  readonly endpoints?: readonly string[];
  /** How many finished-repair records are kept (default KEPT_FINISHED_REPAIRS; tests lower it). */
  readonly keepFinishedRepairs?: number;
  /** How long and how much of the replay records are kept (default DEFAULT_POLL_RECORDS). */
  readonly pollRecords?: PollRecordsConfig;
  /** etcd's `--max-txn-ops` and `--max-request-bytes` (default etcd's own: 128 and 1.5 MiB); writes are split to fit. */
  readonly writeLimits?: Partial<StoreWriteLimits>;
  /** kintsugi's compaction of etcd's old revisions (`etcd.compaction-retention`); absent or a retention of 0: off. */
  readonly compaction?: EtcdCompactionSettings;
}

export interface EtcdCompactionSettings {
  /** How much history is kept; 0: kintsugi does not compact (the start-up check still looks). */
  readonly retentionMs: number;
  /** Tests only: how often the revision is sampled, the clock, and the revision past which no compaction is an error. */
  readonly intervalMs?: number;
  readonly now?: () => number;
  readonly warnAboveRevision?: number;
}

export const DEFAULT_ETCD_TIMEOUT_MS = 2000;

/**
 * Opens the kintsugi store kept in etcd under `prefix`: the store core (see openStoreCore) over the etcd driver.
 * Fails with StoreUnavailableError when etcd does not answer.
 */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<KintsugiStore> {
  const { client } = options;
  const keys = new StoreKeys(options.prefix);
  const log = options.log ?? SILENT_LOG;
  const timeoutMs = options.timeoutMs ?? DEFAULT_ETCD_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`the etcd timeout must be a positive number of milliseconds, got ${timeoutMs}`);
  const limits = checkedLimits(options.writeLimits);
  const endpoints = options.endpoints ?? clientEndpoints(client);
  const driver = new EtcdKvDriver({ client, probeKey: keys.schema, endpoints, timeoutMs, limits, log });
  const settings = options.compaction;
  const retentionMs = settings?.retentionMs ?? 0;
  const compaction =
    retentionMs === 0
      ? null
      : new EtcdCompaction({
          driver,
          probeKey: keys.schema,
          retentionMs,
          log,
          ...(settings?.intervalMs !== undefined && { intervalMs: settings.intervalMs }),
          ...(settings?.now && { now: settings.now }),
        });
  const store = await openStoreCore(etcdAccess(driver, keys, endpoints), { ...options, log });
  await checkEtcdCompaction({
    driver,
    probeKey: keys.schema,
    kintsugiCompacts: compaction !== null,
    log,
    ...(settings?.warnAboveRevision !== undefined && { warnAboveRevision: settings.warnAboveRevision }),
  });
  if (compaction === null) return store;
  compaction.start();
  return {
    ...store,
    close: async () => {
      await compaction.stop();
      await store.close();
    },
  };
}

/** The endpoints the client was made with (etcd3 keeps its options on the client; its types call them protected). */
function clientEndpoints(client: Etcd3): readonly string[] {
  const hosts = (client as unknown as { options?: { hosts?: unknown } }).options?.hosts;
  if (typeof hosts === "string") return [hosts];
  return Array.isArray(hosts) ? hosts.map(String) : ["the etcd client's endpoints"];
}
