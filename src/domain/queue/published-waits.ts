import type { WaitingFor } from "./repair-wait.js";

/** At most this many waits are published (the lowest indexes); an entry past them answers null on a follower. */
export const MAX_PUBLISHED_WAITS = 1000;

/** And at most this many bytes of them as JSON, far below etcd's 1.5 MiB request limit whatever the messages hold. */
export const MAX_PUBLISHED_BYTES = 512 * 1024;

/** A published message is cut to this many characters (a hold's reason and setter are the long parts). */
export const MAX_WAIT_MESSAGE_CHARS = 400;

/** One entry's wait as the leader publishes it to the store for every replica to serve. */
export interface PublishedWait extends WaitingFor {
  readonly index: number;
}

const cut = (text: string) => (text.length <= MAX_WAIT_MESSAGE_CHARS ? text : `${text.slice(0, MAX_WAIT_MESSAGE_CHARS - 1)}…`);

/** `wait` as every replica serves it: its message (and domain) cut to MAX_WAIT_MESSAGE_CHARS, ending in "…" when cut. */
export function boundedWait(wait: WaitingFor): WaitingFor {
  if (wait.message.length <= MAX_WAIT_MESSAGE_CHARS && (wait.domain?.length ?? 0) <= MAX_WAIT_MESSAGE_CHARS) return wait;
  return { ...wait, message: cut(wait.message), domain: wait.domain === null ? null : cut(wait.domain) };
}

/**
 * The waits of one pass as published: a rule's hold wins over the entry's own wait, sorted by index, each bounded,
 * the lowest indexes that fit in MAX_PUBLISHED_WAITS and MAX_PUBLISHED_BYTES. Two passes that leave the same waits
 * give equal lists (so the leader writes only when the set changes).
 */
export function publishedWaits(held: ReadonlyMap<number, WaitingFor>, waiting: ReadonlyMap<number, WaitingFor>): PublishedWait[] {
  const all = new Map<number, WaitingFor>([...waiting, ...held]);
  const published: PublishedWait[] = [];
  let bytes = 2;
  for (const index of [...all.keys()].sort((a, b) => a - b)) {
    const wait: PublishedWait = { index, ...boundedWait(all.get(index) as WaitingFor) };
    bytes += utf8.encode(JSON.stringify(wait)).length + 1;
    if (published.length === MAX_PUBLISHED_WAITS || bytes > MAX_PUBLISHED_BYTES) break;
    published.push(wait);
  }
  return published;
}

const utf8 = new TextEncoder();

/** The published waits by entry index. */
export function waitsByIndex(published: readonly PublishedWait[]): ReadonlyMap<number, WaitingFor> {
  const byIndex = new Map<number, WaitingFor>();
  for (const { index, ...wait } of published) byIndex.set(index, wait);
  return byIndex;
}
