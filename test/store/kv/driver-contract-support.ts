import type { KvDriver, KvEvent, KvPair, KvWatchSink } from "../../../src/store/kv/kv-driver.js";

/** One store under test, opened by a driver's factory for one case of the contract. */
export interface OpenedKvDriver {
  readonly driver: KvDriver;
  /**
   * Every key a case uses starts with this (a fresh etcd prefix per open). The cases count revisions from the first
   * they read, so nothing else may write to the same etcd while a case runs.
   */
  readonly prefix: string;
  /** Closes the current driver and opens the same store again (the same file, the same etcd prefix). */
  reopen(): Promise<KvDriver>;
  /** Closes whichever driver is open and removes the store. */
  dispose(): Promise<void>;
}

/** What a driver's factory says of it, where the drivers rightly differ. */
export interface KvDriverCapabilities {
  /** etcd serves old revisions until they are compacted; SQLite keeps only the current one. */
  readonly keepsRevisions: boolean;
}

export type OpenKvDriver = () => Promise<OpenedKvDriver>;

/** Runs `body` on a freshly opened store, disposing it whatever happens. */
export async function withStore(open: OpenKvDriver, body: (store: OpenedKvDriver) => Promise<void>): Promise<void> {
  const store = await open();
  try {
    await body(store);
  } finally {
    await store.dispose();
  }
}

/** The store's revision now, read with a get of a key nobody writes. */
export async function revisionOf(driver: KvDriver, prefix: string): Promise<number> {
  return (await driver.get("revision", `${prefix}nobody`)).revision;
}

/** Puts `pairs` in one transaction with no compares; returns its revision. */
export async function putAll(driver: KvDriver, pairs: Record<string, string>): Promise<number> {
  const puts = Object.entries(pairs).map(([key, value]) => ({ key, value }));
  const result = await driver.txn("put", { compares: [], puts, deletes: [], reads: [] });
  if (!result.succeeded) throw new Error("a txn without compares failed");
  return result.revision;
}

/** A pair as a line that a test can compare whole: `key=value c<create> m<mod>`. */
export const pairLine = (kv: KvPair | null, prefix = ""): string | null =>
  kv === null ? null : `${kv.key.slice(prefix.length)}=${kv.value.toString("utf8")} c${kv.createRevision} m${kv.modRevision}`;

/** An event as a line: `put key=value`, `delete key` (a delete's value must be empty). */
export const eventLine = (e: KvEvent, prefix: string): string =>
  e.type === "put"
    ? `put ${e.key.slice(prefix.length)}=${e.value.toString("utf8")}`
    : `delete ${e.key.slice(prefix.length)}${e.value.length > 0 ? " (with a value)" : ""}`;

/** A watch sink that records every call and lets a test wait for the n-th one (no sleeps). */
export class RecordingSink implements KvWatchSink {
  readonly calls: Array<{ readonly revision: number; readonly events: readonly KvEvent[] }> = [];
  lostWith: Error | null = null;
  private waiters: Array<{ readonly count: number; readonly resolve: () => void }> = [];

  constructor(private readonly fromRevision: number) {}

  events(revision: number, events: readonly KvEvent[]): void {
    this.calls.push({ revision, events: [...events] });
    const ready = this.waiters.filter((w) => this.calls.length >= w.count);
    this.waiters = this.waiters.filter((w) => this.calls.length < w.count);
    for (const w of ready) w.resolve();
  }

  resumeFrom(): number {
    return (this.calls.at(-1)?.revision ?? this.fromRevision - 1) + 1;
  }

  lost(err: Error): void {
    this.lostWith = err;
  }

  /** Resolves once `count` calls were recorded; fails after `timeoutMs` (only bounds a broken driver). */
  received(count: number, timeoutMs = 10_000): Promise<void> {
    if (this.calls.length >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the watch delivered ${this.calls.length} calls, not ${count}, within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** The calls as lines, revisions relative to `base`: `@1 put a=1, delete b`; an event of another revision says so. */
  lines(prefix: string, base: number): string[] {
    const line = (e: KvEvent, revision: number) => eventLine(e, prefix) + (e.modRevision === revision ? "" : ` (mod revision ${e.modRevision})`);
    return this.calls.map((c) => `@${c.revision - base} ${c.events.map((e) => line(e, c.revision)).join(", ")}`);
  }
}
