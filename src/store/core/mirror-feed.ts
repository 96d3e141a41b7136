import { StoreUnavailableError, type StoreCommit } from "../store-port.js";
import { rangePages, type KeyRange, type KvDriver, type KvEvent, type KvWatch } from "../kv/kv-driver.js";
import type { StoreKeys } from "./store-keys.js";
import type { StoreMirror } from "./store-mirror.js";
import { MirroredRecords } from "./mirrored-records.js";
import type { Log } from "../../support/log.js";

/** A gRPC answer is limited to 4 MiB by default: a configuration of 8,000 nodes is about 350 kB. */
const PAGE = { generations: 4, other: 500, recordKeys: 5_000 } as const;

interface Waiter {
  readonly done: () => boolean;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * Keeps the mirror up to date: a consistent read of everything but the history at revision R, then the driver's
 * watch from R+1, each revision applied and announced once, in order. A reconnected watch resumes after the mirror's
 * revision; when etcd compacted past it, the whole mirror is read again (logged loudly: subscribers missed changes).
 */
export class MirrorFeed {
  private watcher: KvWatch | null = null;
  private readonly listeners = new Set<(commit: StoreCommit) => void>();
  private waiters: Waiter[] = [];
  private closed = false;
  private resyncTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly driver: KvDriver,
    private readonly keys: StoreKeys,
    private readonly mirror: StoreMirror,
    private readonly log: Log,
  ) {}

  async start(): Promise<void> {
    await this.load();
    await this.watch();
  }

  onCommit(listener: (commit: StoreCommit) => void): () => void {
    const entry = (commit: StoreCommit) => listener(commit);
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  reached(revision: number): Promise<void> {
    return this.until(() => this.mirror.revision >= revision, `revision ${revision}`);
  }

  /** Resolves once `done` holds of the mirror; StoreUnavailableError when the watch does not get it there in time. */
  until(done: () => boolean, what: string): Promise<void> {
    if (done()) return Promise.resolve();
    if (this.closed) return Promise.reject(new StoreUnavailableError(`the ${this.driver.backend} store is closed`));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(
          new StoreUnavailableError(
            `the ${this.driver.backend} watch did not deliver ${what} within ${this.driver.timeoutMs} ms (this replica has revision ${this.mirror.revision})`,
          ),
        );
      }, this.driver.timeoutMs);
      this.waiters.push({ done, resolve, reject, timer });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new StoreUnavailableError(`the ${this.driver.backend} store was closed before its watch delivered the write`));
    }
    this.waiters = [];
    const watcher = this.watcher;
    this.watcher = null;
    if (watcher) await watcher.cancel();
  }

  /**
   * Reads everything but the history in pages at the revision of the first page, so it is consistent however many
   * pages it takes; of the outcomes and replay records only the keys (the records' go into the mirror's columns page
   * by page: a year of polls is half a million keys). The mirror must know whether any history exists (indexes were
   * handed out) without holding it.
   */
  private async load(): Promise<void> {
    const { all, allHistory, allGenerations, allOutcomes, allRecords, prefix } = this.keys;
    const areas: Array<[KeyRange, number]> = [
      [{ start: all.start, end: allGenerations.start }, PAGE.other],
      [allGenerations, PAGE.generations],
      [{ start: allGenerations.end, end: allHistory.start }, PAGE.other],
      [{ start: allHistory.end, end: allOutcomes.start }, PAGE.other],
      [{ start: allOutcomes.end, end: allRecords.start }, PAGE.other],
      [{ start: allRecords.end, end: all.end }, PAGE.other],
    ];
    const what = `reading ${prefix}`;
    const events: KvEvent[] = [];
    let revision: number | undefined;
    for (const [range, limit] of areas) {
      for await (const page of rangePages(this.driver, what, range, { limit, revision }, true)) {
        revision ??= page.revision;
        for (const kv of page.kvs) events.push({ type: "put", ...kv });
      }
    }
    const records = new MirroredRecords();
    const none = Buffer.alloc(0);
    for (const range of [allOutcomes, allRecords]) {
      for await (const page of rangePages(this.driver, what, range, { limit: PAGE.recordKeys, revision, keysOnly: true })) {
        for (const { key } of page.kvs) {
          const parsed = this.keys.parse(key);
          if (parsed.kind === "record") records.put(parsed.record);
          else events.push({ type: "put", key, value: none, modRevision: 0 });
        }
      }
    }
    const history = await this.driver.range(what, allHistory, { limit: 1, revision, keysOnly: true });
    this.mirror.load(events, revision ?? 0, history.kvs.length > 0, records);
    this.settle();
  }

  private async watch(): Promise<void> {
    let watch: KvWatch | null = null;
    watch = await this.driver.watch(this.keys.all, this.mirror.revision + 1, {
      events: (revision, events) => {
        if (watch === null || this.watcher === watch) this.receive(revision, events);
      },
      resumeFrom: () => this.mirror.revision + 1,
      lost: (err) => {
        if (watch !== null && this.watcher === watch) this.lost(err);
      },
    });
    this.watcher = watch;
  }

  /** Applies a revision and announces what it changed; one the mirror already has (a resumed watch's replay) is dropped. */
  private receive(revision: number, events: readonly KvEvent[]): void {
    const commit = revision > this.mirror.revision ? this.mirror.applyRevision(revision, events) : null;
    if (commit !== null)
      for (const listener of this.listeners) {
        try {
          listener(commit);
        } catch (err) {
          this.log.error("an onCommit listener failed", { revision, error: (err as Error).message });
        }
      }
    this.settle();
  }

  private settle(): void {
    const done = this.waiters.filter((w) => w.done());
    if (done.length === 0) return;
    this.waiters = this.waiters.filter((w) => !done.includes(w));
    for (const w of done) {
      clearTimeout(w.timer);
      w.resolve();
    }
  }

  private lost(err: Error): void {
    if (this.closed) return;
    this.watcher = null;
    this.log.error("the store's watch cannot continue from the mirror's revision: reading the whole store again; subscribers miss the changes in between", {
      prefix: this.keys.prefix,
      revision: this.mirror.revision,
      error: err.message,
    });
    void this.resync();
  }

  private async resync(): Promise<void> {
    this.resyncTimer = null;
    if (this.closed) return;
    try {
      await this.start();
      if (this.closed) {
        await this.close();
        return;
      }
      this.log.warn("the store's mirror was read again and the watch resumed", { prefix: this.keys.prefix, revision: this.mirror.revision });
    } catch (err) {
      this.log.warn("reading the store again failed; retrying", { prefix: this.keys.prefix, error: (err as Error).message });
      this.resyncTimer = setTimeout(() => void this.resync(), this.driver.timeoutMs);
      this.resyncTimer.unref();
    }
  }
}
