import type { PollRecordsConfig } from "../../config/poll-records-schema.js";
import type { Constraints } from "../../domain/shared/constraints.js";
import type { KintsugiStore, StoreCommit, WriteGuard } from "../store-port.js";
import { refuseUnfinishedCopy } from "../copy/copy-marker.js";
import { CoreEnqueue } from "./enqueue.js";
import { CoreEntryPort } from "./entry-port.js";
import { CoreFinishedPort } from "./finished-port.js";
import { CoreGenerationPort } from "./generation-port.js";
import { CoreHoldPort } from "./hold-port.js";
import type { KvStoreAccess } from "./kv-store-access.js";
import { StoreMirror } from "./store-mirror.js";
import { CoreOutcomePort } from "./outcome-port.js";
import { CorePollRecordPort } from "./poll-record-port.js";
import { ensureSchema } from "./schema-version.js";
import { CoreSettingsPort } from "./settings-port.js";
import { StoreWriter } from "./store-writer.js";
import { MirrorFeed } from "./mirror-feed.js";
import { withFields, type Log } from "../../support/log.js";

/** What the store core needs besides its driver (the same for both backends' open options). */
export interface StoreCoreOptions {
  /** The config file's constraints, applied where none was set through the API. */
  readonly initialConstraints?: Partial<Constraints>;
  readonly log: Log;
  /** Default KEPT_FINISHED_REPAIRS; tests lower it. */
  readonly keepFinishedRepairs?: number;
  /** How long and how much of the replay records are kept (default DEFAULT_POLL_RECORDS). */
  readonly pollRecords?: PollRecordsConfig;
}

/**
 * The kintsugi store over either driver: writes the schema version on a new store (refusing a newer one, and one
 * holding an unfinished `kintsugi db copy`), reads everything but the history into a mirror kept current by the
 * driver's watch, and closes the driver with the store (or when opening fails).
 */
export async function openStoreCore(access: KvStoreAccess, options: StoreCoreOptions): Promise<KintsugiStore> {
  const { driver, keys } = access;
  // Every line names the store it is about (the etcd prefix or the SQLite file): a key alone does not say which.
  const log = withFields(options.log, { store: access.place });
  const mirror = new StoreMirror(keys, log, options.keepFinishedRepairs);
  const feed = new MirrorFeed(driver, keys, mirror, log);
  try {
    await ensureSchema(access);
    // After the schema key: a copy writes that key with its marker, so a replica starting during a copy sees both.
    await refuseUnfinishedCopy(access);
    await feed.start();
  } catch (err) {
    await feed.close();
    await driver.close();
    throw err;
  }
  const compose = (writer: StoreWriter): KintsugiStore => {
    const parts = { driver, keys, mirror, writer, log };
    const pollRecords = new CorePollRecordPort(parts, options.pollRecords);
    const enqueue = new CoreEnqueue(parts, pollRecords);
    return {
      backend: driver.backend,
      entries: new CoreEntryPort(parts),
      settings: new CoreSettingsPort(parts, options.initialConstraints),
      outcomes: new CoreOutcomePort(parts),
      finished: new CoreFinishedPort(parts),
      generations: new CoreGenerationPort(parts),
      holds: new CoreHoldPort(parts),
      pollRecords,
      enqueue: (decide, now, actor) => enqueue.run(decide, now, actor),
      // A single writer (SQLite's file lock) needs no guard; its term's records still name the replica.
      guarded: (guard: WriteGuard, replica?: string) => compose(writer.guarded(driver.singleWriter ? null : guard, replica ?? null)),
      onCommit: (listener: (commit: StoreCommit) => void) => feed.onCommit(listener),
      health: () => driver.health(),
      close: async () => {
        await feed.close();
        await driver.close();
      },
    };
  };
  return compose(new StoreWriter(driver, mirror, feed));
}
