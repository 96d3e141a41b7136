import type { KeyRange, KvEvent, KvWatch, KvWatchSink } from "../kv-driver.js";

interface ActiveWatch {
  readonly start: Buffer;
  readonly end: Buffer;
  readonly fromRevision: number;
  readonly sink: KvWatchSink;
}

/** Whether `key` lies in [start, end) in the byte order of its UTF-8 form: SQLite's and etcd's order, not JavaScript's. */
const holds = (watch: ActiveWatch, key: Buffer): boolean => Buffer.compare(key, watch.start) >= 0 && Buffer.compare(key, watch.end) < 0;

/**
 * The SQLite driver's watches: each commit is announced right after it. Announcements are queued, so a sink that
 * writes from inside `events` cannot make another sink see a later revision before an earlier one.
 */
export class SqliteKvWatches {
  private readonly watches = new Set<ActiveWatch>();
  private readonly pending: Array<{ readonly revision: number; readonly events: readonly KvEvent[] }> = [];
  private delivering = false;

  add(range: KeyRange, fromRevision: number, sink: KvWatchSink): KvWatch {
    const watch: ActiveWatch = { start: Buffer.from(range.start), end: Buffer.from(range.end), fromRevision, sink };
    this.watches.add(watch);
    return {
      cancel: async () => {
        this.watches.delete(watch);
      },
    };
  }

  announce(revision: number, events: readonly KvEvent[]): void {
    if (events.length === 0 || this.watches.size === 0) return;
    this.pending.push({ revision, events });
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let next = this.pending.shift(); next !== undefined; next = this.pending.shift()) this.deliver(next.revision, next.events);
    } finally {
      this.delivering = false;
    }
  }

  clear(): void {
    this.watches.clear();
    this.pending.length = 0;
  }

  private deliver(revision: number, events: readonly KvEvent[]): void {
    const keys = events.map((e) => Buffer.from(e.key));
    // A copy: a sink may cancel its own watch, or another, while it is told.
    for (const watch of [...this.watches]) {
      if (!this.watches.has(watch) || revision < watch.fromRevision) continue;
      const mine = events.filter((_, i) => holds(watch, keys[i] as Buffer));
      if (mine.length === 0) continue;
      try {
        watch.sink.events(revision, mine);
      } catch {
        // The write is committed and the other sinks must still be told: the sink's failure is its own to report.
      }
    }
  }
}
