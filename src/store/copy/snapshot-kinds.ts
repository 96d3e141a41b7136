import { gzipSync } from "node:zlib";
import { z } from "../../support/zod.js";
import type { KeyRange, KvPair } from "../kv/kv-driver.js";
import type { ParsedKey, StoreKeys } from "../core/store-keys.js";
import { MAX_ETCD_RECORD_BYTES, recordPut } from "../core/poll-record-port.js";
import { decodeValue, encodeValue, gunzipCluster } from "../core/store-values.js";
import { decodeHistory, encodeHistory } from "../core/history-value.js";
import {
  finishedRepairSchema,
  historyRecordSchema,
  repairEntrySchema,
  settingValueOf,
  storedHoldSchema,
  VALUE_SCHEMAS as SCHEMAS,
} from "../core/value-schemas.js";
import { DEFAULT_WORKER_SELECTION, readWorkerSelection, WORKER_SELECTIONS } from "../../domain/cluster/worker-selection.js";
import { pollRecordSchema, remediationRecordSchema } from "../poll-record-schema.js";
import type { SnapshotItem, SnapshotItemKind } from "./store-snapshot.js";
import type { SnapshotCounters } from "./snapshot-digest.js";
import { NamedError } from "../store-errors.js";

/** The kinds of item a snapshot counts (all but the counters). */
export type CountedKind = Exclude<SnapshotItemKind, "counters">;
type ItemOf<K extends CountedKind> = Extract<SnapshotItem, { readonly kind: K }>;

/** The highest number a snapshot holds of those each counter hands out: what the counter must be above. */
export type SnapshotHighest = Record<keyof SnapshotCounters, number>;

/** A stored value that is not what its key says; the message says what it holds (`repair entry 2`). */
export class MisplacedValueError extends NamedError {}

/** What the snapshot does with one kind of item: how it is counted, checked, named, ordered, stored and read back. */
export interface SnapshotKind<K extends CountedKind> {
  readonly kind: K;
  /** As the summary and errors name the count. */
  readonly name: string;
  range(keys: StoreKeys): KeyRange;
  /** Keys per range read (default 500): few where values can be large (a gRPC answer is limited to 4 MiB). */
  readonly page?: number;
  /** The item's fields as the stores write them (exactly these: a copy writes nothing a store would not). */
  readonly fields: z.ZodRawShape;
  /** Names the item in an error: "setting constraints". */
  describe(item: ItemOf<K>): string;
  /** The part of the item that orders it within its kind. */
  order(item: ItemOf<K>): readonly number[] | Buffer;
  /** The numbers the item holds that a counter hands out, by that counter (absent: none). */
  counted?(item: ItemOf<K>): ReadonlyArray<readonly [keyof SnapshotCounters, number]>;
  /** The puts that store the item as the store core keeps it; `writeId` stamps settings. */
  puts(keys: StoreKeys, item: ItemOf<K>, writeId: string): Array<{ key: string; value: string }>;
  /**
   * The item the value `kv` of a key of this kind holds (the replay records, read in two ranges merged, have none);
   * UndecodableValueError when it cannot be read, MisplacedValueError when it is not what its key says.
   */
  read?(kv: KvPair, key: Extract<ParsedKey, { kind: K }>): ItemOf<K>;
}

const kind = <K extends CountedKind>(spec: SnapshotKind<K>): SnapshotKind<K> => spec;
const valueOf = <S extends z.ZodType>(schema: S, kv: KvPair): z.infer<S> => decodeValue(schema, kv.key, kv.value);
const misplaced = (what: string): never => {
  throw new MisplacedValueError(what);
};
const id = z.number().int().min(1);

/** What a setting holds. */
const jsonValue: z.ZodType<unknown> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number().finite(), z.string(), z.array(jsonValue), z.record(z.string(), jsonValue)]),
);

/**
 * A generation record as stored, `cluster` the very JSON text recorded (not a re-serialization); snapshots written
 * before records named their policy: weighted.
 */
const generationSchema = SCHEMAS.generation.shape.record
  .omit({ templateSetAt: true })
  .extend({ policy: z.enum(WORKER_SELECTIONS).default(DEFAULT_WORKER_SELECTION), cluster: z.string().nullable() });
export type SnapshotGeneration = z.infer<typeof generationSchema>;

function describeReplay({ replay }: ItemOf<"replay">): string {
  return `replay record ${replay.sequence} (${replay.area === "intake" ? "a poll's intake" : `health check ${JSON.stringify(replay.record.check)}`})`;
}

/**
 * Each count of a snapshot, in the snapshot's canonical order (see SnapshotItem): the one table a kind of item is
 * added to, which the export, the copy's checks and writes, the digest and `kintsugi db check` follow.
 */
export const SNAPSHOT_KINDS = {
  settings: kind({
    kind: "setting",
    name: "settings",
    range: (keys) => keys.allSettings,
    fields: { name: z.string().min(1), value: jsonValue },
    describe: (item) => `setting ${item.name}`,
    // Both stores order names by their UTF-8 bytes (SQLite's BINARY collation, etcd's key order).
    order: (item) => Buffer.from(item.name, "utf8"),
    puts: (keys, item, writeId) => [{ key: keys.setting(item.name), value: encodeValue({ w: writeId, value: item.value }) }],
    read: (kv, { name }) => ({ kind: "setting", name, value: valueOf(settingValueOf(name), kv).value }),
  }),
  entries: kind({
    kind: "entry",
    name: "repair entries",
    range: (keys) => keys.allEntries,
    fields: { entry: repairEntrySchema },
    describe: (item) => `repair entry ${item.entry.index}`,
    order: (item) => [item.entry.index],
    counted: (item) => [["nextIndex", item.entry.index]],
    puts: (keys, item) => [{ key: keys.entry(item.entry.index), value: encodeValue({ entry: item.entry }) }],
    read: (kv, key) => {
      const { entry } = valueOf(SCHEMAS.entry, kv);
      return entry.index === key.index ? { kind: "entry", entry } : misplaced(`repair entry ${entry.index}`);
    },
  }),
  history: kind({
    kind: "history",
    name: "history records",
    range: (keys) => keys.allHistory,
    fields: { record: historyRecordSchema },
    describe: (item) => `history record ${item.record.sequence} (repair entry ${item.record.entryIndex})`,
    order: (item) => [item.record.entryIndex, item.record.sequence],
    counted: ({ record }) => [
      ["nextIndex", record.entryIndex],
      ["nextHistorySequence", record.sequence],
    ],
    // No replica watches a copy being written, so the value tells no change of an entry: only the record.
    puts: (keys, { record }) => [{ key: keys.history(record.entryIndex, record.sequence), value: encodeHistory(record, null, null) }],
    read: (kv, { index, sequence }) => {
      const { record } = decodeHistory(kv.key, index, sequence, kv.value);
      if (record.entryIndex !== index || record.sequence !== sequence) misplaced(`history record ${record.sequence} of repair entry ${record.entryIndex}`);
      return { kind: "history", record };
    },
  }),
  outcomes: kind({
    kind: "outcome",
    name: "poll outcomes",
    range: (keys) => keys.allOutcomes,
    page: 50,
    fields: { outcome: SCHEMAS.outcome.shape.outcome },
    describe: (item) => `poll outcome ${item.outcome.sequence}`,
    order: (item) => [item.outcome.sequence],
    counted: ({ outcome }) => [["nextOutcomeSequence", outcome.sequence], ...outcome.enqueued.map((e) => ["nextIndex", e.index] as const)],
    puts: (keys, item) => [{ key: keys.outcome(item.outcome.sequence), value: encodeValue({ outcome: item.outcome }) }],
    read: (kv, key) => {
      const { outcome } = valueOf(SCHEMAS.outcome, kv);
      return outcome.sequence === key.sequence ? { kind: "outcome", outcome } : misplaced(`poll outcome ${outcome.sequence}`);
    },
  }),
  generations: kind({
    kind: "generation",
    name: "generation records",
    range: (keys) => keys.allGenerations,
    page: 4,
    fields: { generation: generationSchema },
    describe: (item) => `generation record ${item.generation.sequence}`,
    order: (item) => [item.generation.sequence],
    counted: (item) => [["nextGenerationSequence", item.generation.sequence]],
    puts: (keys, { generation: g }) => {
      const cluster = g.cluster === null ? null : gzipSync(g.cluster).toString("base64");
      return [{ key: keys.generation(g.sequence), value: encodeValue({ record: { ...g, cluster } }) }];
    },
    read: (kv, key) => {
      const { record } = valueOf(SCHEMAS.generation, kv);
      if (record.sequence !== key.sequence) misplaced(`generation record ${record.sequence}`);
      let cluster: string | null;
      try {
        cluster = record.cluster === null ? null : gunzipCluster(record.cluster, `generation record ${record.sequence}`);
      } catch (err) {
        return misplaced(`a configuration that cannot be decompressed (${(err as Error).message})`);
      }
      return { kind: "generation", generation: { ...record, policy: readWorkerSelection(record.policy), cluster } };
    },
  }),
  holds: kind({
    kind: "hold",
    name: "machine holds",
    range: (keys) => keys.allHolds,
    fields: { hold: storedHoldSchema },
    describe: (item) => `machine hold ${JSON.stringify(item.hold.address)}`,
    order: (item) => Buffer.from(item.hold.address, "utf8"),
    puts: (keys, item) => [{ key: keys.hold(item.hold.address), value: encodeValue({ hold: item.hold }) }],
    read: (kv, key) => {
      const { hold } = valueOf(SCHEMAS.hold, kv);
      return hold.address === key.address ? { kind: "hold", hold } : misplaced(`the machine hold of ${JSON.stringify(hold.address)}`);
    },
  }),
  finished: kind({
    kind: "finished",
    name: "finished repairs",
    range: (keys) => keys.allFinished,
    fields: { finished: finishedRepairSchema },
    describe: (item) => `finished-repair record ${item.finished.sequence} (repair entry ${item.finished.entryIndex})`,
    order: (item) => [item.finished.sequence],
    // Its sequence is the history record's that ended the repair: the next history sequence must be above it.
    counted: ({ finished }) => [
      ["nextIndex", finished.entryIndex],
      ["nextHistorySequence", finished.sequence],
    ],
    puts: (keys, item) => [{ key: keys.finished(item.finished.sequence), value: encodeValue({ finished: item.finished }) }],
    read: (kv, key) => {
      const { finished } = valueOf(SCHEMAS.finished, kv);
      return finished.sequence === key.sequence ? { kind: "finished", finished } : misplaced(`finished-repair record ${finished.sequence}`);
    },
  }),
  replayRecords: kind({
    kind: "replay",
    name: "replay records",
    range: (keys) => keys.allRecords,
    page: 4,
    fields: {
      replay: z.discriminatedUnion("area", [
        z.object({ sequence: id, area: z.literal("intake"), record: pollRecordSchema }),
        z.object({ sequence: id, area: z.literal("health-check"), record: remediationRecordSchema }),
      ]),
    },
    describe: describeReplay,
    order: (item) => [item.replay.sequence],
    puts: (keys, item) => {
      const { key, value, bytes } = recordPut(keys, item.replay.area, item.replay.sequence, item.replay.record);
      if (bytes > MAX_ETCD_RECORD_BYTES)
        throw new Error(
          `${describeReplay(item)} takes ${bytes} bytes as a stored value, more than the ${MAX_ETCD_RECORD_BYTES} a record may (etcd's request limit, kept on both drivers); it cannot be copied`,
        );
      return [{ key, value }];
    },
  }),
} as const;

/** How many items of each kind a snapshot holds. */
export type SnapshotCounts = { readonly [count in keyof typeof SNAPSHOT_KINDS]: number };

/** The counts as the summary and errors name them, the queue's first. */
export const COUNT_NAMES = Object.fromEntries(
  [...new Set(["entries", "history", ...Object.keys(SNAPSHOT_KINDS)])].map((count) => [count, SNAPSHOT_KINDS[count as keyof SnapshotCounts].name]),
) as Readonly<Record<keyof SnapshotCounts, string>>;

/** The counts by the kind of item. */
export const COUNT_OF = Object.fromEntries(Object.entries(SNAPSHOT_KINDS).map(([count, spec]) => [spec.kind, count])) as Readonly<
  Record<CountedKind, keyof SnapshotCounts>
>;

/** The table entry of `item`'s kind, for any item (its methods then take that item). */
export function kindOf(item: ItemOf<CountedKind>): SnapshotKind<CountedKind> {
  return SNAPSHOT_KINDS[COUNT_OF[item.kind]] as SnapshotKind<CountedKind>;
}

/** Raises `highest` to the counted numbers `item` holds. */
export function raiseHighest(highest: SnapshotHighest, item: ItemOf<CountedKind>): void {
  for (const [counter, n] of kindOf(item).counted?.(item) ?? []) highest[counter] = Math.max(highest[counter], n);
}
