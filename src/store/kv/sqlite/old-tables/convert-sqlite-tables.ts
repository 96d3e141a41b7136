import { SnapshotDigest, type SnapshotSummary } from "../../../copy/snapshot-digest.js";
import { checkSnapshotItem, describeItem, putsOf } from "../../../copy/snapshot-items.js";
import { SNAPSHOT_KINDS } from "../../../copy/snapshot-kinds.js";
import type { SnapshotItem } from "../../../copy/store-snapshot.js";
import { StoreKeys } from "../../../core/store-keys.js";
import { recordPut } from "../../../core/poll-record-port.js";
import { valueSchemaOf } from "../../../core/value-schemas.js";
import { decodeValue, encodeValue, STORE_SCHEMA_VERSION } from "../../../core/store-values.js";
import type { Db } from "../database.js";
import { refuseUnfinishedCopy } from "./sqlite-copy-marker.js";
import { nextAfter, sqliteSnapshotRows } from "./sqlite-snapshot-export.js";
import { SQLITE_KV_PREFIX, SQLITE_KV_TABLES } from "../sqlite-kv-schema.js";

/** The tables of migrations 1-12 that the key-value table replaces (schema_version is the migrations' own). */
const OLD_TABLES = [...Object.values(SNAPSHOT_KINDS).map((spec) => spec.table), "copy_in_progress"];

/** The conversion's write id: never a writer's UUID, and converting the same file twice gives the same bytes. */
export const CONVERSION_WRITE_ID = "converted-from-sqlite-tables";

/** The conversion is one commit: the revision of every converted pair, from which the driver's revisions go on. */
const CONVERSION_REVISION = 1;

export interface KvConversionOptions {
  /** Told how many pairs were written so far (a test stops the conversion there). */
  readonly afterPut?: (pairs: number) => void;
  /** Told how many rows of the old tables were converted so far. */
  readonly afterItem?: (items: number) => void;
}

/** What a conversion wrote: the summary as `kintsugi db check` computes it from the old tables, and the keys. */
export interface KvConversion {
  readonly summary: SnapshotSummary;
  readonly pairs: number;
  readonly revision: number;
}

/** The old tables hold something the conversion cannot carry over; nothing is converted. */
class KvConversionError extends Error {
  override readonly name = "KvConversionError";
}

/** How many rows the old tables of `db` hold: what a conversion has to do. */
export function oldTableRows(db: Db): number {
  let rows = 0;
  for (const table of OLD_TABLES) rows += db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
  return rows;
}

/**
 * Converts the old tables of `source` (read only) to the key-value table of `target`, inside one transaction of
 * `target`: every item of the snapshot export, checked as `kintsugi db copy` checks it, written with the keys and
 * values a copy writes, and the heads as the store's own writes leave them. Rows are streamed into a prepared insert,
 * so memory does not grow with the history.
 *
 * @throws UnfinishedCopyError for a file holding an unfinished copy; KvConversionError naming the row that fails.
 */
export function convertTablesToKv(source: Db, target: Db, options: KvConversionOptions = {}): KvConversion {
  if (!target.inTransaction) throw new Error(`converting ${source.name} to the key-value table of ${target.name} must run inside a transaction`);
  refuseUnfinishedCopy(source);
  const from = `sqlite:${source.name}`;
  const keys = new StoreKeys(SQLITE_KV_PREFIX);
  target.exec(SQLITE_KV_TABLES);
  const insert = target.prepare("INSERT INTO kv (key, value, create_revision, mod_revision) VALUES (?, ?, ?, ?)");
  let pairs = 0;
  const put = (key: string, value: string) => {
    insert.run(key, Buffer.from(value, "utf8"), CONVERSION_REVISION, CONVERSION_REVISION);
    pairs++;
    options.afterPut?.(pairs);
  };
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
      if (item.kind !== "counters") options.afterItem?.(++items);
    }
  } catch (err) {
    throw new KvConversionError(`the old tables cannot be converted to the key-value table (the file is left unconverted): ${(err as Error).message}`, {
      cause: err,
    });
  }
  const nextRecord = nextAfter(source, "poll_records", "seq");
  // The etcd store's record and hold writes compare and rewrite these heads; a store that handed out a record
  // sequence or holds a hold has them, and the records head goes on past every sequence ever handed out.
  if (nextRecord > 1) put(keys.recordsHead, encodeValue({ w: CONVERSION_WRITE_ID, next: nextRecord }));
  if (holds > 0) put(keys.holdsHead, encodeValue({ w: CONVERSION_WRITE_ID, changes: [] }));
  target.prepare("UPDATE kv_revision SET revision = ? WHERE id = 1").run(CONVERSION_REVISION);
  return { summary: digest.summary(), pairs, revision: CONVERSION_REVISION };
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
