import type { z } from "zod";
import { SnapshotSourceError, type SnapshotItem } from "./store-snapshot.js";
import { readWorkerSelection } from "../../domain/cluster/worker-selection.js";
import { keyRange, type KvDriver, type KvPair } from "../kv/kv-driver.js";
import { RECORD_AREAS, type StoreKeys, type KeyRange, type ParsedKey } from "../core/store-keys.js";
import { decodeRecord } from "../core/poll-record-port.js";
import type { PollRecord } from "../../domain/replay/poll-record.js";
import type { RemediationRecord } from "../../domain/replay/remediation-record.js";
import {
  entryValue,
  finishedValue,
  generationValue,
  holdValue,
  outcomeValue,
  queueHeadValue,
  schemaValue,
  sequenceHeadValue,
  settingValueOf,
} from "../core/value-schemas.js";
import { decodeValue, gunzipCluster, UndecodableValueError } from "../core/store-values.js";
import { decodeHistory } from "../core/history-value.js";

/** Keys per range read: few where values can be large (a gRPC answer is limited to 4 MiB). */
const PAGE = { settings: 500, entries: 500, history: 500, outcomes: 50, generations: 4, holds: 500, finished: 500, records: 4 } as const;

interface Reader {
  readonly driver: KvDriver;
  readonly keys: StoreKeys;
  readonly from: string;
}

async function* pages(reader: Reader, range: KeyRange, limit: number, revision: number): AsyncGenerator<KvPair> {
  for (let start = range.start; ;) {
    const page = await reader.driver.range(`reading ${range.start}`, { start, end: range.end }, { limit, revision });
    yield* page.kvs;
    const last = page.kvs.at(-1);
    if (!page.more || last === undefined) return;
    start = `${last.key}\0`;
  }
}

function decode<S extends z.ZodType>(reader: Reader, schema: S, kv: KvPair): z.infer<S> {
  return decodeWith(reader, () => decodeValue(schema, kv.key, kv.value));
}

function decodeWith<T>(reader: Reader, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof UndecodableValueError) throw new SnapshotSourceError(`${reader.from}: ${err.message}; a copy cannot carry it`);
    throw err;
  }
}

/** The parsed key of `kv`, which must be of `kind`: any other key in an area is not kintsugi's. */
function parsedAs<K extends ParsedKey["kind"]>(reader: Reader, kv: KvPair, kind: K): Extract<ParsedKey, { kind: K }> {
  const key = kv.key;
  const parsed = reader.keys.parse(key);
  if (parsed.kind !== kind) throw foreignKey(reader, key);
  return parsed as Extract<ParsedKey, { kind: K }>;
}

function foreignKey(reader: Reader, key: string): SnapshotSourceError {
  return new SnapshotSourceError(`${reader.from}: store key ${key} is not one kintsugi writes; a copy cannot carry it (remove it, or copy another store)`);
}

function mismatch(reader: Reader, kv: KvPair, what: string): SnapshotSourceError {
  return new SnapshotSourceError(`${reader.from}: store key ${kv.key} holds ${what}; a copy cannot carry it`);
}

/** The single keys and the areas of the layout, in key order; the gaps between them must be empty. */
function layout(keys: StoreKeys): KeyRange[] {
  const known = [keys.schema, keys.queue, keys.outcomesHead, keys.generationsHead, keys.holdsHead, keys.recordsHead, keys.copyMarker].map(keyRange);
  known.push(
    keys.allEntries,
    keys.allFinished,
    keys.allHistory,
    keys.allSettings,
    keys.allOutcomes,
    keys.allGenerations,
    keys.allLeaders,
    keys.allHolds,
    ...RECORD_AREAS.map((area) => keys.recordsOf(area)),
  );
  return known.sort((a, b) => Buffer.compare(Buffer.from(a.start), Buffer.from(b.start)));
}

/** Fails on the first key in no area of the layout (a copy must not drop it silently). */
async function refuseForeignKeys(reader: Reader, revision: number | null): Promise<void> {
  const known = layout(reader.keys);
  let from = reader.keys.all.start;
  for (const range of [...known, { start: reader.keys.all.end, end: reader.keys.all.end }]) {
    if (Buffer.compare(Buffer.from(from), Buffer.from(range.start)) < 0) {
      const gap = { start: from, end: range.start };
      const found = await reader.driver.range(`reading ${gap.start}`, gap, { limit: 1, keysOnly: true, revision: revision ?? undefined });
      if (found.kvs[0] !== undefined) throw foreignKey(reader, found.kvs[0].key);
    }
    from = range.end;
  }
}

/**
 * Fails when the prefix holds a newer layout (which could hold what this export would drop) or a key kintsugi does
 * not write; checked before a copy begins and again at the copy's revision (`revision` null: the newest).
 */
export async function refuseUnknownLayout(driver: KvDriver, keys: StoreKeys, from: string, revision: number | null = null): Promise<void> {
  const reader: Reader = { driver, keys, from };
  const schema = await driver.get(`reading ${keys.schema}`, keys.schema, { revision: revision ?? undefined });
  if (schema.kv !== null) decode(reader, schemaValue, schema.kv);
  await refuseForeignKeys(reader, revision);
}

/** The replay records by sequence, both kinds' key ranges merged; one that cannot be read fails the export. */
async function* replayRecords(reader: Reader, revision: number): AsyncGenerator<SnapshotItem> {
  const areas = RECORD_AREAS.map((area) => pages(reader, reader.keys.recordsOf(area), PAGE.records, revision)[Symbol.asyncIterator]());
  const heads = await Promise.all(areas.map((a) => a.next()));
  for (;;) {
    const ready = heads.flatMap((h, i) => (h.done ? [] : [{ i, kv: h.value, parsed: parsedAs(reader, h.value, "record").record }]));
    const next = ready.sort((a, b) => a.parsed.sequence - b.parsed.sequence)[0];
    if (next === undefined) return;
    if (next.parsed.area !== RECORD_AREAS[next.i]) throw foreignKey(reader, next.kv.key);
    const read = decodeRecord(next.kv.key, next.parsed, next.kv.value);
    if (!read.ok) throw mismatch(reader, next.kv, `a replay record that cannot be read (${read.message})`);
    const replay =
      next.parsed.area === "intake"
        ? { sequence: next.parsed.sequence, area: "intake" as const, record: read.record as PollRecord }
        : { sequence: next.parsed.sequence, area: "health-check" as const, record: read.record as RemediationRecord };
    yield { kind: "replay", replay };
    heads[next.i] = await (areas[next.i] as AsyncIterator<KvPair>).next();
  }
}

/**
 * The snapshot of the store, every key read at the revision of the first read (concurrent writes cannot tear it).
 * Every value is checked against its key; a key or value kintsugi did not write fails the export, naming it. The
 * election keys and the copy marker are left out; counters are the heads, raised past every number seen.
 */
export async function* kvSnapshotItems(driver: KvDriver, keys: StoreKeys, from: string): AsyncGenerator<SnapshotItem> {
  const reader: Reader = { driver, keys, from };
  const { revision } = await driver.get(`reading ${keys.prefix}`, keys.schema);
  await refuseUnknownLayout(driver, keys, from, revision);
  const head = async <S extends z.ZodType>(key: string, schema: S): Promise<z.infer<S> | null> => {
    const { kv } = await driver.get(`reading ${key}`, key, { revision });
    return kv === null ? null : decode(reader, schema, kv);
  };
  const queue = await head(keys.queue, queueHeadValue);
  const outcomesHead = await head(keys.outcomesHead, sequenceHeadValue);
  const generationsHead = await head(keys.generationsHead, sequenceHeadValue);
  const seen = { index: 0, history: 0, outcome: 0, generation: 0 };

  for await (const kv of pages(reader, keys.allSettings, PAGE.settings, revision)) {
    const { name } = parsedAs(reader, kv, "setting");
    yield { kind: "setting", name, value: decode(reader, settingValueOf(name), kv).value };
  }
  for await (const kv of pages(reader, keys.allEntries, PAGE.entries, revision)) {
    const { index } = parsedAs(reader, kv, "entry");
    const { entry } = decode(reader, entryValue, kv);
    if (entry.index !== index) throw mismatch(reader, kv, `repair entry ${entry.index}`);
    seen.index = Math.max(seen.index, index);
    yield { kind: "entry", entry };
  }
  for await (const kv of pages(reader, keys.allHistory, PAGE.history, revision)) {
    const { index, sequence } = parsedAs(reader, kv, "history");
    const { record } = decodeWith(reader, () => decodeHistory(kv.key, index, sequence, kv.value));
    if (record.entryIndex !== index || record.sequence !== sequence)
      throw mismatch(reader, kv, `history record ${record.sequence} of repair entry ${record.entryIndex}`);
    seen.index = Math.max(seen.index, index);
    seen.history = Math.max(seen.history, sequence);
    yield { kind: "history", record };
  }
  for await (const kv of pages(reader, keys.allOutcomes, PAGE.outcomes, revision)) {
    const { sequence } = parsedAs(reader, kv, "outcome");
    const { outcome } = decode(reader, outcomeValue, kv);
    if (outcome.sequence !== sequence) throw mismatch(reader, kv, `poll outcome ${outcome.sequence}`);
    seen.outcome = sequence;
    yield { kind: "outcome", outcome };
  }
  for await (const kv of pages(reader, keys.allGenerations, PAGE.generations, revision)) {
    const { sequence } = parsedAs(reader, kv, "generation");
    const { record } = decode(reader, generationValue, kv);
    if (record.sequence !== sequence) throw mismatch(reader, kv, `generation record ${record.sequence}`);
    seen.generation = sequence;
    let cluster: string | null;
    try {
      cluster = record.cluster === null ? null : gunzipCluster(record.cluster, `generation record ${record.sequence}`);
    } catch (err) {
      throw mismatch(reader, kv, `a configuration that cannot be decompressed (${(err as Error).message})`);
    }
    yield { kind: "generation", generation: { ...record, policy: readWorkerSelection(record.policy), cluster } };
  }
  for await (const kv of pages(reader, keys.allHolds, PAGE.holds, revision)) {
    const { address } = parsedAs(reader, kv, "hold");
    const { hold } = decode(reader, holdValue, kv);
    if (hold.address !== address) throw mismatch(reader, kv, `the machine hold of ${JSON.stringify(hold.address)}`);
    yield { kind: "hold", hold };
  }
  for await (const kv of pages(reader, keys.allFinished, PAGE.finished, revision)) {
    const { sequence } = parsedAs(reader, kv, "finished");
    const { finished } = decode(reader, finishedValue, kv);
    if (finished.sequence !== sequence) throw mismatch(reader, kv, `finished-repair record ${finished.sequence}`);
    seen.index = Math.max(seen.index, finished.entryIndex);
    seen.history = Math.max(seen.history, sequence);
    yield { kind: "finished", finished };
  }
  yield* replayRecords(reader, revision);
  yield {
    kind: "counters",
    counters: {
      nextIndex: Math.max(queue?.nextIndex ?? 1, seen.index + 1),
      nextHistorySequence: Math.max(queue?.nextSequence ?? 1, seen.history + 1),
      nextOutcomeSequence: Math.max(outcomesHead?.next ?? 1, seen.outcome + 1),
      nextGenerationSequence: Math.max(generationsHead?.next ?? 1, seen.generation + 1),
    },
  };
}
