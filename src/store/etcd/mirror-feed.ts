import type { Etcd3, IKeyValue, IWatchResponse, Watcher } from "etcd3";
import type { StoreCommit } from "../store-port.js";
import { StoreUnavailableError } from "../store-port.js";
import type { EtcdAvailability } from "./etcd-availability.js";
import type { EtcdKeys } from "./etcd-keys.js";
import type { EtcdMirror, KeyEvent } from "./etcd-mirror.js";
import { readSnapshot } from "./snapshot-read.js";
import type { Log } from "../../support/log.js";

interface Waiter {
  readonly done: () => boolean;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const keyEvent = (kv: IKeyValue, type: KeyEvent["type"]): KeyEvent => ({
  type,
  key: kv.key.toString("utf8"),
  value: kv.value,
  modRevision: Number(kv.mod_revision),
});

/**
 * Keeps the mirror up to date: a consistent read (in pages) of everything but the history at revision R, then a
 * watch of the whole prefix from R+1. Each revision is one commit, applied and announced once, in revision order.
 * When the watch reconnects it resumes from the revision after the mirror's (events it already applied are dropped),
 * so nothing is missed or doubled; when etcd compacted past the mirror, the whole mirror is read again (and that is
 * logged loudly: subscribers missed those changes).
 */
export class MirrorFeed {
  private watcher: Watcher | null = null;
  private readonly listeners = new Set<(commit: StoreCommit) => void>();
  private waiters: Waiter[] = [];
  private closed = false;
  private resyncTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly client: Etcd3,
    private readonly keys: EtcdKeys,
    private readonly mirror: EtcdMirror,
    private readonly availability: EtcdAvailability,
    private readonly log: Log,
  ) {}

  /** Reads the mirror and starts the watch; fails (StoreUnavailableError) when etcd does not answer. */
  async start(): Promise<void> {
    await this.load();
    await this.watch();
  }

  onCommit(listener: (commit: StoreCommit) => void): () => void {
    const entry = (commit: StoreCommit) => listener(commit);
    this.listeners.add(entry);
    return () => this.listeners.delete(entry);
  }

  /** Resolves once the mirror has applied `revision`; fails when the watch does not deliver it in time. */
  reached(revision: number): Promise<void> {
    return this.until(() => this.mirror.revision >= revision, `revision ${revision}`);
  }

  /**
   * Resolves once `done` holds of the mirror (checked after each revision it applies); fails with
   * StoreUnavailableError when the watch does not get it there within the timeout. `what` names the wait.
   */
  until(done: () => boolean, what: string): Promise<void> {
    if (done()) return Promise.resolve();
    if (this.closed) return Promise.reject(new StoreUnavailableError("the etcd store is closed"));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(
          new StoreUnavailableError(
            `the etcd watch did not deliver ${what} within ${this.availability.timeoutMs} ms (this replica has revision ${this.mirror.revision})`,
          ),
        );
      }, this.availability.timeoutMs);
      this.waiters.push({ done, resolve, reject, timer });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.resyncTimer) clearTimeout(this.resyncTimer);
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(new StoreUnavailableError("the etcd store was closed before its watch delivered the write"));
    }
    this.waiters = [];
    const watcher = this.watcher;
    this.watcher = null;
    // A cancel waits for etcd's answer; do not let a dead etcd hold up a shutdown.
    if (watcher) await Promise.race([watcher.cancel(), new Promise((resolve) => setTimeout(resolve, this.availability.timeoutMs).unref())]);
  }

  private async load(): Promise<void> {
    try {
      const snapshot = await readSnapshot(this.client, this.keys, () => this.availability.callOptions());
      const records = snapshot.recordKeys.map((key): KeyEvent => ({ type: "put", key, value: Buffer.alloc(0), modRevision: 0 }));
      this.mirror.load([...snapshot.kvs.map((kv) => keyEvent(kv, "put")), ...records], snapshot.revision, snapshot.historyExists);
      this.availability.answered();
      this.settle();
    } catch (err) {
      throw this.availability.failed(`reading ${this.keys.prefix}`, err);
    }
  }

  private async watch(): Promise<void> {
    const watcher = this.client
      .watch()
      .inRange(this.keys.all)
      .startRevision(String(this.mirror.revision + 1))
      .watcher();
    this.watcher = watcher;
    let started: { resolve: () => void; reject: (err: Error) => void } | null = null;
    const connected = new Promise<void>((resolve, reject) => (started = { resolve, reject }));
    // Listeners go on before the watcher can emit anything (create() would attach them a tick too late).
    watcher.on("data", (res: IWatchResponse) => this.receive(watcher, res));
    watcher.on("disconnected", (err: Error) => {
      // etcd3 resumes from the revision after the newest header it saw, which can be past events it never
      // delivered (a catch-up batch carries the current revision); resume from the mirror's own revision instead.
      watcher.request.start_revision = String(this.mirror.revision + 1);
      this.availability.watchLost(err.message);
    });
    watcher.on("connected", () => {
      this.availability.watchRestored();
      started?.resolve();
      started = null;
    });
    watcher.on("error", (err: Error) => {
      if (started === null) return this.lost(watcher, err);
      started.reject(err);
      started = null;
    });
    const timer = setTimeout(() => started?.reject(new Error(`no answer within ${this.availability.timeoutMs} ms`)), this.availability.timeoutMs);
    try {
      await connected;
    } catch (err) {
      started = null;
      this.watcher = null;
      void watcher.cancel();
      throw this.availability.failed(`watching ${this.keys.prefix}`, err);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Applies the events of one watch response, one revision at a time (etcd never splits a revision across responses). */
  private receive(watcher: Watcher, res: IWatchResponse): void {
    if (this.watcher !== watcher) return;
    let group: KeyEvent[] = [];
    let revision = 0;
    for (const event of res.events) {
      const modRevision = Number(event.kv.mod_revision);
      if (modRevision <= this.mirror.revision) continue;
      if (modRevision !== revision && group.length > 0) this.commit(revision, group);
      if (modRevision !== revision) group = [];
      revision = modRevision;
      group.push(keyEvent(event.kv, event.type === "Put" ? "put" : "delete"));
    }
    if (group.length > 0) this.commit(revision, group);
    this.settle();
  }

  private commit(revision: number, events: readonly KeyEvent[]): void {
    const commit = this.mirror.applyRevision(revision, events);
    if (commit === null) return;
    for (const listener of this.listeners) {
      try {
        listener(commit);
      } catch (err) {
        this.log.error("an onCommit listener failed", { revision, error: (err as Error).message });
      }
    }
  }

  /** Resolves the waits the mirror now satisfies. */
  private settle(): void {
    const done = this.waiters.filter((w) => w.done());
    if (done.length === 0) return;
    this.waiters = this.waiters.filter((w) => !done.includes(w));
    for (const w of done) {
      clearTimeout(w.timer);
      w.resolve();
    }
  }

  /** The watch was cancelled by etcd (its revision compacted away, or refused): read everything again. */
  private lost(watcher: Watcher, err: Error): void {
    if (this.watcher !== watcher || this.closed) return;
    this.watcher = null;
    this.availability.watchLost(err.message);
    this.log.error("the etcd watch cannot continue from the mirror's revision: reading the whole store again; subscribers miss the changes in between", {
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
      this.log.warn("the etcd mirror was read again and the watch resumed", { prefix: this.keys.prefix, revision: this.mirror.revision });
    } catch (err) {
      this.log.warn("reading the etcd store again failed; retrying", { prefix: this.keys.prefix, error: (err as Error).message });
      this.resyncTimer = setTimeout(() => void this.resync(), this.availability.timeoutMs);
      this.resyncTimer.unref();
    }
  }
}
