import { gzipSync } from "node:zlib";
import type { SnapshotItem } from "./store-snapshot.js";
import { describeItem } from "./snapshot-items.js";
import type { StoreKeys } from "../core/store-keys.js";
import { MAX_ETCD_RECORD_BYTES, recordPut } from "../core/poll-record-port.js";
import { encodeValue } from "../core/store-values.js";
import { encodeHistory } from "../core/history-value.js";

/**
 * The puts that store one snapshot item as the store core keeps it on both drivers (see value-schemas.ts), for a copy
 * into a store and for the conversion of the old SQLite tables to the key-value table. `writeId` stamps heads and
 * settings.
 */
export function putsOf(keys: StoreKeys, item: SnapshotItem, writeId: string): Array<{ key: string; value: string }> {
  switch (item.kind) {
    case "setting":
      return [{ key: keys.setting(item.name), value: encodeValue({ w: writeId, value: item.value }) }];
    case "entry":
      return [{ key: keys.entry(item.entry.index), value: encodeValue({ entry: item.entry }) }];
    case "history": {
      // No replica watches a copy being written, so the value tells no change of an entry: only the record.
      const { record } = item;
      return [{ key: keys.history(record.entryIndex, record.sequence), value: encodeHistory(record, null, null) }];
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
          `${describeItem(item)} takes ${bytes} bytes as a stored value, more than the ${MAX_ETCD_RECORD_BYTES} a record may (etcd's request limit, kept on both drivers); it cannot be copied`,
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
