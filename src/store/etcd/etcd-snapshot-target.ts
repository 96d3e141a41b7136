import { gzipSync } from "node:zlib";
import { TargetNotEmptyError, type CopyMarker, type SnapshotItem, type SnapshotTarget } from "../copy/store-snapshot.js";
import { describeItem } from "../copy/snapshot-items.js";
import type { RepairEntry } from "../../domain/repair-entry.js";
import type { RepairHistoryRecord } from "../../domain/repair-history.js";
import type { EtcdKeys } from "./etcd-keys.js";
import { keyRange, type KvTxn } from "../kv/kv-driver.js";
import { kvSnapshotItems } from "./etcd-snapshot-export.js";
import { MAX_ETCD_RECORD_BYTES, recordPut } from "./etcd-poll-record-port.js";
import { etcdSnapshotAccess, type EtcdSnapshotOptions } from "./etcd-snapshot-source.js";
import type { KvStoreAccess } from "./kv-store-access.js";
import { encodeValue, ETCD_SCHEMA_VERSION } from "./etcd-values.js";

/**
 * A chunk is one transaction: at most 100 items (etcd refuses more than 128 operations in one by default, and the
 * counters take three) and about 1 MiB of their JSON (etcd refuses a request over 1.5 MiB by default; a value is at
 * most a little larger than its item's JSON, and a configuration is gzip'd). A larger item goes alone.
 */
const CHUNK_LIMITS = { items: 100, bytes: 1024 * 1024 } as const;

/**
 * The entry a history value carries (the store's watch tells subscribers the entry after each change from it): the
 * record's state on the entry as it is in the queue, or, for an entry already dequeued, on what the record tells
 * (the rest empty). No replica watches a copy being written, so no subscriber ever reads these.
 */
function entryOfRecord(record: RepairHistoryRecord, queued: RepairEntry | undefined): RepairEntry {
  const base = queued ?? {
    address: "",
    nodename: "",
    serial: null,
    machineType: "",
    operation: "",
    lastTransitionTime: null,
    drainBackoffCount: 0,
    drainBackoffExpire: null,
    createdAt: record.time,
    source: "",
  };
  return { ...base, index: record.entryIndex, status: record.status, step: record.step, stepStatus: record.stepStatus, deleted: record.deleted };
}

/** The puts that store one item as the etcd store keeps it (see etcd-value-schemas.ts); `writeId` stamps heads and settings. */
function putsOf(keys: EtcdKeys, item: SnapshotItem, writeId: string, queued: Map<number, RepairEntry>): Array<{ key: string; value: string }> {
  switch (item.kind) {
    case "setting":
      return [{ key: keys.setting(item.name), value: encodeValue({ w: writeId, value: item.value }) }];
    case "entry":
      queued.set(item.entry.index, item.entry);
      return [{ key: keys.entry(item.entry.index), value: encodeValue({ entry: item.entry }) }];
    case "history": {
      const { record } = item;
      return [
        { key: keys.history(record.entryIndex, record.sequence), value: encodeValue({ record, entry: entryOfRecord(record, queued.get(record.entryIndex)) }) },
      ];
    }
    case "outcome":
      return [{ key: keys.outcome(item.outcome.sequence), value: encodeValue({ outcome: item.outcome }) }];
    case "generation": {
      const g = item.generation;
      const cluster = g.cluster === null ? null : gzipSync(g.cluster).toString("base64");
      return [{ key: keys.generation(g.sequence), value: encodeValue({ record: { ...g, cluster } }) }];
    }
    case "hold":
      return [{ key: keys.hold(item.hold.address), value: encodeValue({ hold: item.hold }) }];
    case "finished":
      return [{ key: keys.finished(item.finished.sequence), value: encodeValue({ finished: item.finished }) }];
    case "replay": {
      const { key, value, bytes } = recordPut(keys, item.replay.area, item.replay.sequence, item.replay.record);
      if (bytes > MAX_ETCD_RECORD_BYTES)
        throw new Error(
          `${describeItem(item)} takes ${bytes} bytes in etcd, more than the ${MAX_ETCD_RECORD_BYTES} a record may (etcd's request limit); it cannot be copied to etcd`,
        );
      return [{ key, value }];
    }
    case "counters": {
      const c = item.counters;
      return [
        { key: keys.queue, value: encodeValue({ w: writeId, nextIndex: c.nextIndex, nextSequence: c.nextHistorySequence }) },
        { key: keys.outcomesHead, value: encodeValue({ w: writeId, next: c.nextOutcomeSequence }) },
        { key: keys.generationsHead, value: encodeValue({ w: writeId, next: c.nextGenerationSequence }) },
      ];
    }
  }
}

/** An etcd prefix as the target of a copy (see {@link openKvSnapshotTarget}). */
export function openEtcdSnapshotTarget(options: EtcdSnapshotOptions): Promise<SnapshotTarget> {
  return Promise.resolve(openKvSnapshotTarget(etcdSnapshotAccess(options)));
}

/**
 * A store as the target of a copy (the driver is closed with it). It must hold no key at all. The first transaction
 * writes the copy marker and the schema key only if neither exists (a replica starting meanwhile writes the schema
 * key first, and then refuses the marker); every chunk is one transaction that requires the marker this copy wrote
 * (by its creation revision), so a copy whose marker was removed under it stops; the last removes the marker.
 */
export function openKvSnapshotTarget(access: KvStoreAccess): SnapshotTarget {
  const { keys, driver, description, place, howToEmpty } = access;
  const queued = new Map<number, RepairEntry>();
  let marker: { readonly copyId: string; readonly revision: number } | null = null;
  const begun = () => {
    if (marker === null) throw new Error(`the copy into ${description} has not begun`);
    return marker;
  };
  const commit = async (what: string, change: Pick<KvTxn, "puts" | "deletes">) => {
    const { revision } = begun();
    const response = await driver.txn(what, { compares: [{ key: keys.copyMarker, target: "create", revision }], ...change, reads: [] });
    if (!response.succeeded)
      throw new Error(`${description}: the copy marker ${keys.copyMarker} was removed or replaced while ${what}; something else writes to this store`);
  };
  return {
    description,
    howToEmpty,
    chunkLimits: CHUNK_LIMITS,
    async checkEmpty() {
      const held = await driver.count(`reading ${keys.prefix}`, keys.all);
      if (held > 0) throw new TargetNotEmptyError(`the ${place} already holds data (${held} ${held === 1 ? "key" : "keys"}); copy only into an empty store`);
    },
    async begin(copy: CopyMarker) {
      const response = await driver.txn(`writing the copy marker ${keys.copyMarker}`, {
        compares: [
          { key: keys.schema, target: "create", revision: 0 },
          { key: keys.copyMarker, target: "create", revision: 0 },
        ],
        puts: [
          { key: keys.copyMarker, value: JSON.stringify(copy) },
          { key: keys.schema, value: JSON.stringify({ v: ETCD_SCHEMA_VERSION }) },
        ],
        deletes: [],
        reads: [],
      });
      if (!response.succeeded) throw new TargetNotEmptyError(`the ${place} got data while the copy began; copy only into an empty store`);
      marker = { copyId: copy.copyId, revision: response.revision };
    },
    async writeChunk(items) {
      const { copyId } = begun();
      const puts = items.flatMap((item) => putsOf(keys, item, copyId, queued));
      const what = `writing ${describeItem(items[0] as SnapshotItem)} to ${describeItem(items.at(-1) as SnapshotItem)}`;
      await commit(what, { puts, deletes: [] });
    },
    items: () => kvSnapshotItems(driver, keys, description),
    async finish() {
      await commit(`removing the copy marker ${keys.copyMarker}`, { puts: [], deletes: [keyRange(keys.copyMarker)] });
    },
    close: () => driver.close(),
  };
}
