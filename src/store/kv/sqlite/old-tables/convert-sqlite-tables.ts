import type { z } from "zod";
import { SnapshotDigest, type SnapshotSummary } from "../../../copy/snapshot-digest.js";
import { checkSnapshotItem, describeItem } from "../../../copy/snapshot-items.js";
import type { SnapshotItem } from "../../../copy/store-snapshot.js";
import { StoreKeys, type ParsedKey } from "../../../core/store-keys.js";
import { recordPut } from "../../../core/poll-record-port.js";
import {
  entryValue,
  finishedValue,
  generationValue,
  holdsHeadValue,
  holdValue,
  outcomeValue,
  queueHeadValue,
  schemaValue,
  sequenceHeadValue,
  settingValueOf,
} from "../../../core/value-schemas.js";
import { decodeValue, encodeValue, STORE_SCHEMA_VERSION } from "../../../core/store-values.js";
import type { Db } from "../database.js";
import { refuseUnfinishedCopy } from "./sqlite-copy-marker.js";
import { sqliteSnapshotRows } from "./sqlite-snapshot-export.js";
import { putsOf } from "../../../copy/snapshot-puts.js";
import { SQLITE_KV_PREFIX, SQLITE_KV_TABLES } from "../sqlite-kv-schema.js";

/** The tables of migrations 1-12 that the key-value table replaces (schema_version is the migrations' own). */
const OLD_TABLES = [
  "settings",
  "repair_entries",
  "repair_history",
  "auto_repair_outcomes",
  "cluster_generations",
  "machine_holds",
  "finished_repairs",
  "poll_records",
  "copy_in_progress",
] as const;

/**
 * The write id that stamps the heads and settings the conversion writes. The etcd writer stamps its writes with a
 * fresh UUID and looks for its own after a failed compare; this text is never one, so no writer mistakes the
 * conversion's pairs for its own, and converting the same file twice gives the same bytes.
 */
export const CONVERSION_WRITE_ID = "converted-from-sqlite-tables";

/**
 * The revision of every converted pair and of the store after the conversion: it is one commit, as a transaction is
 * one revision in etcd, and the driver's revisions go on from it.
 */
export const CONVERSION_REVISION = 1;

export interface KvConversionOptions {
  /** Called after each pair is written, with how many were written so far (a test stops the conversion there). */
  readonly afterPut?: (pairs: number) => void;
  /** Called after each row of the old tables is converted, with how many were so far. */
  readonly afterItem?: (items: number) => void;
}

/** What a conversion wrote. */
export interface KvConversion {
  /** The items converted: counts, counters and sha256 as `kintsugi db check` computes them from the old tables. */
  readonly summary: SnapshotSummary;
  /** How many keys the key-value table holds. */
  readonly pairs: number;
  readonly revision: number;
}

/** The old tables hold something the conversion cannot carry over; nothing is converted, the file left as it was. */
export class KvConversionError extends Error {
  override readonly name = "KvConversionError";
}

/** How many rows the old tables of `db` hold: what a conversion has to do. */
export function oldTableRows(db: Db): number {
  let rows = 0;
  for (const table of OLD_TABLES) rows += db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
  return rows;
}

/**
 * Converts the tables of migrations 1-12 in `source` (read only) to the key-value table (SQLITE_KV_TABLES) of
 * `target`: every item of the snapshot export, checked as `kintsugi db copy` checks it, is written under
 * {@link SQLITE_KV_PREFIX} with the keys and values a copy into etcd writes (putsOf), with the schema key as
 * ensureSchema writes it, the counters as the heads, and the records and holds heads as the etcd store's writes leave
 * them. Synchronous, and meant to run inside one transaction of `target` (convertOldFile makes it a new file that
 * replaces the old one). Rows are streamed from the old tables into a prepared insert, so memory does not grow with
 * the history.
 *
 * @throws UnfinishedCopyError when the file holds the marker of an unfinished copy (it is refused as the store's
 * open refuses it); KvConversionError naming the row that cannot be read or checked.
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
  const nextRecord = nextRecordSequence(source);
  // The etcd store's record and hold writes compare and rewrite these heads; a store that handed out a record
  // sequence or holds a hold has them, and the records head goes on past every sequence ever handed out.
  if (nextRecord > 1) put(keys.recordsHead, encodeValue({ w: CONVERSION_WRITE_ID, next: nextRecord }));
  if (holds > 0) put(keys.holdsHead, encodeValue({ w: CONVERSION_WRITE_ID, changes: [] }));
  target.prepare("UPDATE kv_revision SET revision = ? WHERE id = 1").run(CONVERSION_REVISION);
  return { summary: digest.summary(), pairs, revision: CONVERSION_REVISION };
}

/**
 * The pairs of one item. A replay record is kept whatever its size: SQLite has no request limit, so the limit putsOf
 * holds a copy into etcd to does not apply (the old store kept records of any size).
 */
function pairsOf(keys: StoreKeys, item: SnapshotItem): ReadonlyArray<{ key: string; value: string }> {
  if (item.kind !== "replay") return putsOf(keys, item, CONVERSION_WRITE_ID);
  return [recordPut(keys, item.replay.area, item.replay.sequence, item.replay.record)];
}

/**
 * Refuses a pair the etcd store would not read back as written (its mirror and its export decode these values by
 * their key; a value that fails is left out of the queue, or makes its setting unwritable): a queued entry whose
 * address is no IP address passes the snapshot's checks but not the store's. History and replay records are left
 * out of this (the bulk of a store): the snapshot's checks are the ones their values are read with, and the export
 * decoded each record's body whole.
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

function valueSchemaOf(parsed: ParsedKey): z.ZodType | null {
  switch (parsed.kind) {
    case "schema":
      return schemaValue;
    case "queue":
      return queueHeadValue;
    case "outcomes-head":
    case "generations-head":
    case "records-head":
      return sequenceHeadValue;
    case "holds-head":
      return holdsHeadValue;
    case "setting":
      return settingValueOf(parsed.name);
    case "entry":
      return entryValue;
    case "outcome":
      return outcomeValue;
    case "generation":
      return generationValue;
    case "hold":
      return holdValue;
    case "finished":
      return finishedValue;
    default:
      return null;
  }
}

/** The replay records' next sequence: past every one AUTOINCREMENT handed out (sqlite_sequence outlives pruned rows). */
function nextRecordSequence(db: Db): number {
  const used = db
    .prepare("SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'poll_records'), 0), COALESCE((SELECT MAX(seq) FROM poll_records), 0))")
    .pluck()
    .get() as number;
  return used + 1;
}
