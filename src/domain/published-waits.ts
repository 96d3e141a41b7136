import type { WaitingFor } from "./repair-wait.js";

/** At most this many waits are published (the lowest indexes); an entry past them answers null on a follower. */
export const MAX_PUBLISHED_WAITS = 2000;

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
 * The waits of one pass as published: a rule's hold wins over the entry's own wait, sorted by index, at most
 * MAX_PUBLISHED_WAITS, each bounded. Two passes that leave the same waits give equal lists (so the leader writes only
 * when the set changes).
 */
export function publishedWaits(held: ReadonlyMap<number, WaitingFor>, waiting: ReadonlyMap<number, WaitingFor>): PublishedWait[] {
  const all = new Map<number, WaitingFor>([...waiting, ...held]);
  return [...all.keys()]
    .sort((a, b) => a - b)
    .slice(0, MAX_PUBLISHED_WAITS)
    .map((index) => ({ index, ...boundedWait(all.get(index) as WaitingFor) }));
}

/** The published waits by entry index. */
export function waitsByIndex(published: readonly PublishedWait[]): ReadonlyMap<number, WaitingFor> {
  const byIndex = new Map<number, WaitingFor>();
  for (const { index, ...wait } of published) byIndex.set(index, wait);
  return byIndex;
}
