import type { KeyRange, KvDriver, KvPair } from "../kv/kv-driver.js";
import { MirroredRecords } from "./mirrored-records.js";
import type { StoreKeys } from "./store-keys.js";

/** Everything under the prefix but the history, as of one revision. */
export interface Snapshot {
  readonly kvs: readonly KvPair[];
  /** The outcomes' keys (their values are not read: the mirror holds them by key only). */
  readonly outcomeKeys: readonly string[];
  /**
   * The replay records, by key (their values are not read). A year of polls is half a million keys: each page of them
   * goes into the columns as it is read, so that no list of them all is made.
   */
  readonly records: MirroredRecords;
  readonly revision: number;
  /** Whether any history key exists (the mirror does not hold them, but must know indexes were handed out). */
  readonly historyExists: boolean;
}

/**
 * Keys per range read, by area. A gRPC answer is limited to 4 MiB by default: a generated configuration of 8,000
 * nodes is about 350 kB, and an outcome can list thousands of skipped machines, so those areas are read in small
 * pages; the rest in larger ones.
 */
const PAGE = { generations: 4, other: 500, recordKeys: 5_000 } as const;

/**
 * Reads everything but the history (and of the outcomes and replay records only their keys) at one revision: the first page fixes
 * the revision, every later page is read at it, so the snapshot is consistent however many pages it takes.
 */
export async function readSnapshot(driver: KvDriver, keys: StoreKeys): Promise<Snapshot> {
  const { all, allHistory, allGenerations, allOutcomes, allRecords } = keys;
  const areas: Array<[KeyRange, number]> = [
    [{ start: all.start, end: allGenerations.start }, PAGE.other],
    [allGenerations, PAGE.generations],
    [{ start: allGenerations.end, end: allHistory.start }, PAGE.other],
    [{ start: allHistory.end, end: allOutcomes.start }, PAGE.other],
    [{ start: allOutcomes.end, end: allRecords.start }, PAGE.other],
    [{ start: allRecords.end, end: all.end }, PAGE.other],
  ];
  const what = `reading ${keys.prefix}`;
  const kvs: KvPair[] = [];
  let revision: number | undefined;
  for (const [range, limit] of areas) {
    for (let start = range.start; ;) {
      const page = await driver.range(what, { start, end: range.end }, { limit, revision });
      revision ??= page.revision;
      kvs.push(...page.kvs);
      const last = page.kvs.at(-1);
      if (!page.more || last === undefined) break;
      start = `${last.key}\0`;
    }
  }
  const outcomeKeys: string[] = [];
  const records = new MirroredRecords();
  for (const range of [allOutcomes, allRecords]) {
    for (let start = range.start; ;) {
      const page = await driver.range(what, { start, end: range.end }, { limit: PAGE.recordKeys, revision, keysOnly: true });
      for (const { key } of page.kvs) {
        const parsed = keys.parse(key);
        if (parsed.kind === "record") records.put(parsed.record);
        else outcomeKeys.push(key);
      }
      const last = page.kvs.at(-1);
      if (!page.more || last === undefined) break;
      start = `${last.key}\0`;
    }
  }
  const history = await driver.range(what, allHistory, { limit: 1, revision, keysOnly: true });
  return { kvs, outcomeKeys, records, revision: revision ?? 0, historyExists: history.kvs.length > 0 };
}
