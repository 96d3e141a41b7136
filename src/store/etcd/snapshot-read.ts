import type { Etcd3, IKeyValue } from "etcd3";
import type { CallOptions } from "./etcd-availability.js";
import type { EtcdKeys, KeyRange } from "./etcd-keys.js";

/** Everything under the prefix but the history, as of one revision. */
export interface Snapshot {
  readonly kvs: readonly IKeyValue[];
  /** The replay records' keys (their values are not read: the mirror holds records by key only). */
  readonly recordKeys: readonly string[];
  readonly revision: number;
  /** Whether any history key exists (the mirror does not hold them, but must know indexes were handed out). */
  readonly historyExists: boolean;
}

/**
 * Keys per range read, by area. A gRPC answer is limited to 4 MiB by default: a generated configuration of 8,000
 * nodes is about 350 kB, and an outcome can list thousands of skipped machines, so those areas are read in small
 * pages; the rest in larger ones.
 */
const PAGE = { generations: 4, outcomes: 50, other: 500, recordKeys: 5_000 } as const;

/**
 * Reads everything but the history (and of the replay records only their keys) at one revision: the first page fixes the revision, every later page is read at
 * it, so the snapshot is consistent however many pages it takes. `options` gives each call its deadline.
 */
export async function readSnapshot(client: Etcd3, keys: EtcdKeys, options: () => CallOptions): Promise<Snapshot> {
  const { all, allHistory, allGenerations, allOutcomes, allRecords } = keys;
  const areas: Array<[KeyRange, number]> = [
    [{ start: all.start, end: allGenerations.start }, PAGE.other],
    [allGenerations, PAGE.generations],
    [{ start: allGenerations.end, end: allHistory.start }, PAGE.other],
    [{ start: allHistory.end, end: allOutcomes.start }, PAGE.other],
    [allOutcomes, PAGE.outcomes],
    [{ start: allOutcomes.end, end: allRecords.start }, PAGE.other],
    [{ start: allRecords.end, end: all.end }, PAGE.other],
  ];
  const kvs: IKeyValue[] = [];
  let revision: number | null = null;
  for (const [range, limit] of areas) {
    let start: string | Buffer = range.start;
    for (;;) {
      const read = client.getAll().inRange({ start, end: range.end }).limit(limit).options(options());
      const page = await (revision === null ? read : read.revision(revision)).exec();
      revision ??= Number(page.header.revision);
      kvs.push(...page.kvs);
      const last = page.kvs.at(-1);
      if (!page.more || last === undefined) break;
      start = Buffer.concat([last.key, Buffer.from([0])]);
    }
  }
  const recordKeys: string[] = [];
  for (let start = allRecords.start; ;) {
    const page = await client
      .getAll()
      .inRange({ start, end: allRecords.end })
      .revision(revision ?? 0)
      .limit(PAGE.recordKeys)
      .options(options())
      .keys();
    recordKeys.push(...page);
    const last = page.at(-1);
    if (page.length < PAGE.recordKeys || last === undefined) break;
    start = `${last}\0`;
  }
  const history = await client
    .getAll()
    .inRange(allHistory)
    .revision(revision ?? 0)
    .limit(1)
    .options(options())
    .keys();
  return { kvs, recordKeys, revision: revision ?? 0, historyExists: history.length > 0 };
}
