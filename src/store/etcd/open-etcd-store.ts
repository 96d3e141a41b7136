import type { Etcd3 } from "etcd3";
import type { Constraints } from "../../domain/constraints.js";
import type { KintsugiStore, StoreCommit, WriteGuard } from "../store-port.js";
import { EtcdKvDriver } from "../kv/etcd-kv-driver.js";
import { refuseUnfinishedCopy } from "./etcd-copy-marker.js";
import { EtcdEntryPort } from "./etcd-entry-port.js";
import { EtcdFinishedPort } from "./etcd-finished-port.js";
import { EtcdGenerationPort } from "./etcd-generation-port.js";
import { EtcdHoldPort } from "./etcd-hold-port.js";
import { EtcdKeys } from "./etcd-keys.js";
import { EtcdMirror } from "./etcd-mirror.js";
import { EtcdOutcomePort } from "./etcd-outcome-port.js";
import { EtcdPollRecordPort, recordsWrite } from "./etcd-poll-record-port.js";
import type { PollRecordsConfig } from "../../config/poll-records-schema.js";
import { EtcdSettingsPort } from "./etcd-settings-port.js";
import { ensureSchema } from "./etcd-schema.js";
import { EtcdWriter } from "./etcd-writer.js";
import { EtcdEnqueue } from "./etcd-enqueue.js";
import { checkedLimits, type EtcdWriteLimits } from "./etcd-write-limits.js";
import { MirrorFeed } from "./mirror-feed.js";
import { SILENT_LOG, type Log } from "../../support/log.js";

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
  readonly writeLimits?: Partial<EtcdWriteLimits>;
}

export const DEFAULT_ETCD_TIMEOUT_MS = 2000;

/**
 * Opens the kintsugi store kept in etcd under `prefix`: writes the schema version when the prefix is new (refuses
 * one written by a newer kintsugi, and one holding an unfinished `kintsugi db copy`: UnfinishedCopyError), reads
 * everything but the history into a mirror and keeps it current with a watch. Reads are served from the mirror;
 * writes are etcd transactions with compare-and-swap (see EtcdWriter). Fails with StoreUnavailableError when etcd does not answer.
 */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<KintsugiStore> {
  const { client } = options;
  const keys = new EtcdKeys(options.prefix);
  const log = options.log ?? SILENT_LOG;
  const timeoutMs = options.timeoutMs ?? DEFAULT_ETCD_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) throw new Error(`the etcd timeout must be a positive number of milliseconds, got ${timeoutMs}`);
  const limits = checkedLimits(options.writeLimits);
  const endpoints = options.endpoints ?? clientEndpoints(client);
  const driver = new EtcdKvDriver({ client, probeKey: keys.schema, endpoints, timeoutMs, limits, log });
  const mirror = new EtcdMirror(keys, log, options.keepFinishedRepairs);
  const feed = new MirrorFeed(driver, keys, mirror, log);
  try {
    await ensureSchema(driver, keys);
    // After the schema key: a copy writes that key with its marker, so a replica starting during a copy sees both.
    await refuseUnfinishedCopy(driver, keys);
    await feed.start();
  } catch (err) {
    await feed.close();
    await driver.close();
    throw err;
  }
  const pollRecords = new EtcdPollRecordPort(driver, keys, mirror, log, options.pollRecords);
  const compose = (writer: EtcdWriter): KintsugiStore => {
    const store: KintsugiStore = {
      backend: "etcd",
      entries: new EtcdEntryPort(driver, keys, mirror, writer, log),
      settings: new EtcdSettingsPort(keys, mirror, writer, options.initialConstraints),
      outcomes: new EtcdOutcomePort(keys, mirror, writer),
      finished: new EtcdFinishedPort(mirror),
      generations: new EtcdGenerationPort(keys, mirror, writer),
      holds: new EtcdHoldPort(keys, mirror, writer),
      pollRecords,
      enqueue: (decide, now, actor) =>
        new EtcdEnqueue(writer, mirror, keys, (records, writeId) => recordsWrite(mirror, keys, records, writeId, pollRecords.keep, log), log).run(
          decide,
          now,
          actor,
        ),
      guarded: (guard: WriteGuard) => compose(writer.guarded(guard)),
      onCommit: (listener: (commit: StoreCommit) => void) => feed.onCommit(listener),
      health: () => driver.health(),
      close: async () => {
        await feed.close();
        await driver.close();
      },
    };
    return store;
  };
  return compose(new EtcdWriter(driver, mirror, feed));
}

/** The endpoints the client was made with (etcd3 keeps its options on the client; its types call them protected). */
function clientEndpoints(client: Etcd3): readonly string[] {
  const hosts = (client as unknown as { options?: { hosts?: unknown } }).options?.hosts;
  if (typeof hosts === "string") return [hosts];
  return Array.isArray(hosts) ? hosts.map(String) : ["the etcd client's endpoints"];
}
