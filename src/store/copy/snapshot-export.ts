import type { z } from "../../support/zod.js";
import { SnapshotSourceError, type SnapshotItem, type SnapshotSource } from "./store-snapshot.js";
import { refuseUnfinishedCopy } from "./copy-marker.js";
import type { KvStoreAccess } from "../core/kv-store-access.js";
import { keyRange, rangePages, type KeyRange, type KvPair } from "../kv/kv-driver.js";
import { RECORD_AREAS, type StoreKeys, type ParsedKey } from "../core/store-keys.js";
import { decodeRecord } from "../core/poll-record-port.js";
import { VALUE_SCHEMAS as SCHEMAS } from "../core/value-schemas.js";
import { decodeValue, UndecodableValueError } from "../core/store-values.js";
import { MisplacedValueError, raiseHighest, SNAPSHOT_KINDS, type CountedKind, type SnapshotHighest, type SnapshotKind } from "./snapshot-kinds.js";

/** Keys per range read where a kind names no page of its own. */
const PAGE = 500;

async function* pages(reader: KvStoreAccess, range: KeyRange, limit = PAGE, revision: number): AsyncGenerator<KvPair> {
  for await (const page of rangePages(reader.driver, `reading ${range.start}`, range, { limit, revision })) yield* page.kvs;
}

/** What `read` makes of the value `kv`; one kintsugi cannot read, or not what its key says, fails the export naming it. */
function readValue<T>(reader: KvStoreAccess, kv: KvPair, read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof UndecodableValueError) throw new SnapshotSourceError(`${reader.description}: ${err.message}; a copy cannot carry it`);
    if (err instanceof MisplacedValueError) throw mismatch(reader, kv, err.message);
    throw err;
  }
}

function decode<S extends z.ZodType>(reader: KvStoreAccess, schema: S, kv: KvPair): z.infer<S> {
  return readValue(reader, kv, () => decodeValue(schema, kv.key, kv.value));
}

/** The parsed key of `kv`, which must be of `kind`: any other key in an area is not kintsugi's. */
function parsedAs<K extends ParsedKey["kind"]>(reader: KvStoreAccess, kv: KvPair, kind: K): Extract<ParsedKey, { kind: K }> {
  const parsed = reader.keys.parse(kv.key);
  if (parsed.kind !== kind) throw foreignKey(reader, kv.key);
  return parsed as Extract<ParsedKey, { kind: K }>;
}

function foreignKey(reader: KvStoreAccess, key: string): SnapshotSourceError {
  return new SnapshotSourceError(
    `${reader.description}: store key ${key} is not one kintsugi writes; a copy cannot carry it (remove it, or copy another store)`,
  );
}

function mismatch(reader: KvStoreAccess, kv: KvPair, what: string): SnapshotSourceError {
  return new SnapshotSourceError(`${reader.description}: store key ${kv.key} holds ${what}; a copy cannot carry it`);
}

/** The single keys and the areas of the layout in key order, then the prefix's end: the gaps between them must be empty. */
function layout(keys: StoreKeys): KeyRange[] {
  const known = [keys.schema, keys.queue, keys.outcomesHead, keys.generationsHead, keys.holdsHead, keys.recordsHead, keys.copyMarker].map(keyRange);
  const areas = Object.values(SNAPSHOT_KINDS).filter((spec) => spec.kind !== "replay");
  known.push(keys.allLeaders, ...areas.map((spec) => spec.range(keys)), ...RECORD_AREAS.map((area) => keys.recordsOf(area)));
  return [...known.sort((a, b) => Buffer.compare(Buffer.from(a.start), Buffer.from(b.start))), { start: keys.all.end, end: keys.all.end }];
}

/**
 * Fails when the prefix holds a newer layout (which could hold what this export would drop) or a key in no area of
 * the layout (a copy must not drop it silently); checked before a copy begins and again at the copy's revision.
 */
async function refuseUnknownLayout(reader: KvStoreAccess, revision?: number): Promise<void> {
  const { driver, keys } = reader;
  const schema = await driver.get(`reading ${keys.schema}`, keys.schema, { revision });
  if (schema.kv !== null) decode(reader, SCHEMAS.schema, schema.kv);
  let from = keys.all.start;
  for (const range of layout(keys)) {
    if (Buffer.compare(Buffer.from(from), Buffer.from(range.start)) < 0) {
      const gap = { start: from, end: range.start };
      const found = await driver.range(`reading ${gap.start}`, gap, { limit: 1, keysOnly: true, revision });
      if (found.kvs[0] !== undefined) throw foreignKey(reader, found.kvs[0].key);
    }
    from = range.end;
  }
}

/** The replay records by sequence, both kinds' key ranges merged; one that cannot be read fails the export. */
async function* replayRecords(reader: KvStoreAccess, revision: number): AsyncGenerator<SnapshotItem> {
  const areas = RECORD_AREAS.map((area) => pages(reader, reader.keys.recordsOf(area), SNAPSHOT_KINDS.replayRecords.page, revision)[Symbol.asyncIterator]());
  const heads = await Promise.all(areas.map((a) => a.next()));
  for (;;) {
    const ready = heads.flatMap((h, i) => (h.done ? [] : [{ i, kv: h.value, parsed: parsedAs(reader, h.value, "record").record }]));
    const next = ready.sort((a, b) => a.parsed.sequence - b.parsed.sequence)[0];
    if (next === undefined) return;
    if (next.parsed.area !== RECORD_AREAS[next.i]) throw foreignKey(reader, next.kv.key);
    const read = decodeRecord(next.kv.key, next.parsed, next.kv.value);
    if (!read.ok) throw mismatch(reader, next.kv, `a replay record that cannot be read (${read.message})`);
    yield { kind: "replay", replay: { sequence: next.parsed.sequence, ...read.replay } };
    heads[next.i] = await (areas[next.i] as AsyncIterator<KvPair>).next();
  }
}

/**
 * The snapshot of the store, every key read at the revision of the first read (concurrent writes cannot tear it).
 * Every value is checked against its key; a key kintsugi did not write, or a value of a shape it does not read, fails
 * the export, naming it (a field it does not know is dropped, as on every read of the store). The
 * election keys and the copy marker are left out; counters are the heads, raised past every number seen.
 */
export async function* kvSnapshotItems(reader: KvStoreAccess): AsyncGenerator<SnapshotItem> {
  const { driver, keys } = reader;
  const { revision } = await driver.get(`reading ${keys.prefix}`, keys.schema);
  await refuseUnknownLayout(reader, revision);
  const head = async <S extends z.ZodType>(key: string, schema: S): Promise<z.infer<S> | null> => {
    const { kv } = await driver.get(`reading ${key}`, key, { revision });
    return kv === null ? null : decode(reader, schema, kv);
  };
  const queue = await head(keys.queue, SCHEMAS.queue);
  const outcomesHead = await head(keys.outcomesHead, SCHEMAS["outcomes-head"]);
  const generationsHead = await head(keys.generationsHead, SCHEMAS["generations-head"]);
  const seen: SnapshotHighest = { nextIndex: 0, nextHistorySequence: 0, nextOutcomeSequence: 0, nextGenerationSequence: 0 };
  for (const { range, page, kind, read } of Object.values(SNAPSHOT_KINDS) as Array<SnapshotKind<CountedKind>>) {
    if (read === undefined) continue;
    for await (const kv of pages(reader, range(keys), page, revision)) {
      const item = readValue(reader, kv, () => read(kv, parsedAs(reader, kv, kind as Exclude<CountedKind, "replay">)));
      raiseHighest(seen, item);
      yield item;
    }
  }
  yield* replayRecords(reader, revision);
  yield {
    kind: "counters",
    counters: {
      nextIndex: Math.max(queue?.nextIndex ?? 1, seen.nextIndex + 1),
      nextHistorySequence: Math.max(queue?.nextSequence ?? 1, seen.nextHistorySequence + 1),
      nextOutcomeSequence: Math.max(outcomesHead?.next ?? 1, seen.nextOutcomeSequence + 1),
      nextGenerationSequence: Math.max(generationsHead?.next ?? 1, seen.nextGenerationSequence + 1),
    },
  };
}

/**
 * A store as the source of a copy, refused while replicas run on it (unless `whileRunning`), and when it holds an
 * unfinished copy, a newer layout or a key kintsugi does not write.
 */
export async function openKvSnapshotSource(access: KvStoreAccess, whileRunning: boolean): Promise<SnapshotSource> {
  const { driver, keys, description } = access;
  try {
    await refuseUnfinishedCopy(access);
    const replicas = whileRunning ? 0 : await driver.count(`reading ${keys.allLeaders.start}`, keys.allLeaders);
    if (replicas > 0) {
      throw new SnapshotSourceError(
        `${description}: ${replicas} kintsugi replica(s) run on it (election keys under ${keys.allLeaders.start}); stop them before copying, ` +
          "so that nothing is written after the copy has read the store",
      );
    }
    await refuseUnknownLayout(access);
  } catch (err) {
    await driver.close();
    throw err;
  }
  return {
    description,
    items: () => kvSnapshotItems(access),
    size: () => driver.count(`counting the keys of ${description}`, keys.all),
    close: () => driver.close(),
  };
}
