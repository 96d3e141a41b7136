import { TargetNotEmptyError, type SnapshotItem, type SnapshotTarget } from "./store-snapshot.js";
import type { CopyMarker } from "./copy-marker.js";
import { describeItem } from "./snapshot-digest.js";
import { kindOf } from "./snapshot-kinds.js";
import { keyRange, type KvTxn } from "../kv/kv-driver.js";
import { kvSnapshotItems } from "./snapshot-export.js";
import type { KvStoreAccess } from "../core/kv-store-access.js";
import type { StoreKeys } from "../core/store-keys.js";
import { encodeValue, STORE_SCHEMA_VERSION } from "../core/store-values.js";

/** Within etcd's default 128 operations and 1.5 MiB a request (a value is at most a little larger than its item's JSON). */
const CHUNK_LIMITS = { items: 100, bytes: 1024 * 1024 } as const;
const UNLIMITED_CHUNK_LIMITS = { items: 1000, bytes: 8 * 1024 * 1024 } as const;

/**
 * The puts that store one snapshot item as the store core keeps it on both drivers (see value-schemas.ts), for a copy
 * into a store and for the conversion of the old SQLite tables to the key-value table. `writeId` stamps heads and
 * settings.
 */
export function putsOf(keys: StoreKeys, item: SnapshotItem, writeId: string): Array<{ key: string; value: string }> {
  if (item.kind !== "counters") return kindOf(item).puts(keys, item, writeId);
  const c = item.counters;
  return [
    { key: keys.queue, value: encodeValue({ w: writeId, nextIndex: c.nextIndex, nextSequence: c.nextHistorySequence }) },
    { key: keys.outcomesHead, value: encodeValue({ w: writeId, next: c.nextOutcomeSequence }) },
    { key: keys.generationsHead, value: encodeValue({ w: writeId, next: c.nextGenerationSequence }) },
  ];
}

/**
 * An empty store as the target of a copy. The first transaction writes the copy marker and the schema key only if
 * neither exists (a replica starting meanwhile writes the schema key first, then refuses the marker); every chunk
 * requires the marker this copy wrote, so a copy whose marker was removed under it stops.
 */
export function openKvSnapshotTarget(access: KvStoreAccess): SnapshotTarget {
  const { keys, driver, description, place, howToEmpty } = access;
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
    // A driver without a request limit (SQLite) takes larger chunks: each is a commit, and so an fsync.
    chunkLimits: driver.limits.maxTxnOps === Infinity ? UNLIMITED_CHUNK_LIMITS : CHUNK_LIMITS,
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
          { key: keys.schema, value: JSON.stringify({ v: STORE_SCHEMA_VERSION }) },
        ],
        deletes: [],
        reads: [],
      });
      if (!response.succeeded) throw new TargetNotEmptyError(`the ${place} got data while the copy began; copy only into an empty store`);
      marker = { copyId: copy.copyId, revision: response.revision };
    },
    async writeChunk(items) {
      const { copyId } = begun();
      const puts = items.flatMap((item) => putsOf(keys, item, copyId));
      const what = `writing ${describeItem(items[0] as SnapshotItem)} to ${describeItem(items.at(-1) as SnapshotItem)}`;
      await commit(what, { puts, deletes: [] });
    },
    items: () => kvSnapshotItems(access),
    async finish() {
      await commit(`removing the copy marker ${keys.copyMarker}`, { puts: [], deletes: [keyRange(keys.copyMarker)] });
    },
    close: () => driver.close(),
  };
}
