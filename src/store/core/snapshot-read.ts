import type { KeyRange, KvDriver, KvPair } from "../kv/kv-driver.js";
import { MirroredRecords } from "./mirrored-records.js";
import type { StoreKeys } from "./store-keys.js";

/** Everything under the prefix but the history, as of one revision; of the outcomes and replay records only keys. */
interface Snapshot {
  readonly kvs: readonly KvPair[];
  readonly outcomeKeys: readonly string[];
  /** Each page of record keys goes into the columns as it is read: a year of polls is half a million keys. */
  readonly records: MirroredRecords;
  readonly revision: number;
  /** The mirror does not hold the history, but must know indexes were handed out. */
  readonly historyExists: boolean;
}

/** A gRPC answer is limited to 4 MiB by default: a configuration of 8,000 nodes is about 350 kB. */
const PAGE = { generations: 4, other: 500, recordKeys: 5_000 } as const;

/** Reads the snapshot in pages at the revision of the first page, so it is consistent however many pages it takes. */
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
