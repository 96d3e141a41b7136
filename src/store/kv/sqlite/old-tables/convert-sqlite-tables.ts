import { checkSnapshotItem, describeItem, SnapshotDigest, type SnapshotSummary } from "../../../copy/snapshot-digest.js";
import { putsOf } from "../../../copy/snapshot-target.js";
import type { SnapshotItem } from "../../../copy/store-snapshot.js";
import { StoreKeys } from "../../../core/store-keys.js";
import { recordPut } from "../../../core/poll-record-port.js";
import { valueSchemaOf } from "../../../core/value-schemas.js";
import { decodeValue, encodeValue, STORE_SCHEMA_VERSION } from "../../../core/store-values.js";
import type { Db } from "../database.js";
import { refuseUnfinishedOldCopy } from "./sqlite-copy-marker.js";
import { nextAfter, sqliteSnapshotRows } from "./sqlite-snapshot-export.js";
import { SQLITE_KV_PREFIX, SQLITE_KV_TABLES } from "../sqlite-kv-schema.js";

/** The conversion's write id: never a writer's UUID, and converting the same file twice gives the same bytes. */
export const CONVERSION_WRITE_ID = "converted-from-sqlite-tables";

/** The conversion is one commit: the revision of every converted pair, from which the driver's revisions go on. */
const CONVERSION_REVISION = 1;

/**
 * Converts the old tables of `source` (read only) to the key-value table of `target`, inside one transaction of
 * `target`: every item of the snapshot export, checked as `kintsugi db copy` checks it, written with the keys and
 * values a copy writes, and the heads as the store's own writes leave them. Rows are streamed into a prepared insert,
 * so memory does not grow with the history. `afterItem` is told how many rows were converted so far. Returns the
 * summary `kintsugi db check` computes of the old tables.
 *
 * @throws UnfinishedCopyError for a file holding an unfinished copy; an Error naming the row that cannot be converted.
 */
export function convertTablesToKv(source: Db, target: Db, afterItem?: (items: number) => void): SnapshotSummary {
  if (!target.inTransaction) throw new Error(`converting ${source.name} to the key-value table of ${target.name} must run inside a transaction`);
  refuseUnfinishedOldCopy(source);
  const from = `sqlite:${source.name}`;
  const keys = new StoreKeys(SQLITE_KV_PREFIX);
  target.exec(SQLITE_KV_TABLES);
  const insert = target.prepare("INSERT INTO kv (key, value, create_revision, mod_revision) VALUES (?, ?, ?, ?)");
  const put = (key: string, value: string) => insert.run(key, Buffer.from(value, "utf8"), CONVERSION_REVISION, CONVERSION_REVISION);
  put(keys.schema, JSON.stringify({ v: STORE_SCHEMA_VERSION }));
  const digest = new SnapshotDigest(from);
  let holds = 0;
  let items = 0;
  try {
    for (const raw of sqliteSnapshotRows(source, from)) {
      const item = checkSnapshotItem(raw, from);
      digest.add(item);
      if (item.kind === "hold") holds++;
      for (const p of pairsOf(keys, item)) {
        checkReadable(keys, p, () => `${from}: ${describeItem(item)}`);
        put(p.key, p.value);
      }
      // Rows, as oldTableRows counts them (the counters are no row of their own).
      if (item.kind !== "counters") afterItem?.(++items);
    }
  } catch (err) {
    throw new Error(`the old tables cannot be converted to the key-value table (the file is left unconverted): ${(err as Error).message}`, { cause: err });
  }
  const nextRecord = nextAfter(source, "poll_records", "seq");
  // The etcd store's record and hold writes compare and rewrite these heads; a store that handed out a record
  // sequence or holds a hold has them, and the records head goes on past every sequence ever handed out.
  if (nextRecord > 1) put(keys.recordsHead, encodeValue({ w: CONVERSION_WRITE_ID, next: nextRecord }));
  if (holds > 0) put(keys.holdsHead, encodeValue({ w: CONVERSION_WRITE_ID, changes: [] }));
  target.prepare("UPDATE kv_revision SET revision = ? WHERE id = 1").run(CONVERSION_REVISION);
  return digest.summary();
}

/** A replay record is kept whatever its size: the old store kept records of any size, and SQLite has no request limit. */
function pairsOf(keys: StoreKeys, item: SnapshotItem): ReadonlyArray<{ key: string; value: string }> {
  if (item.kind !== "replay") return putsOf(keys, item, CONVERSION_WRITE_ID);
  return [recordPut(keys, item.replay.area, item.replay.sequence, item.replay.record)];
}

/**
 * Refuses a pair the store would not read back (a queued entry whose address is no IP address passes the snapshot's
 * checks but not the store's). History and replay records, the bulk, are read with the snapshot's checks already.
 */
function checkReadable(keys: StoreKeys, pair: { readonly key: string; readonly value: string }, what: () => string): void {
  const parsed = keys.parse(pair.key);
  if (parsed.kind === "history" || parsed.kind === "record") return;
  const schema = valueSchemaOf(parsed);
  if (schema === null) throw new Error(`${what()} makes the key ${pair.key}, which is not one the store reads`);
  try {
    decodeValue(schema, pair.key, Buffer.from(pair.value, "utf8"));
  } catch (err) {
    throw new Error(`${what()} would not be readable in the store: ${(err as Error).message}`, { cause: err });
  }
}
