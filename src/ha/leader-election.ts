import { performance } from "node:perf_hooks";
import type { Etcd3 } from "etcd3";
import { leaderOf, leadsAt, ownKeyDeleted } from "../domain/service/leadership.js";
import type { WriteGuard } from "../store/store-port.js";
import { abortableSleep } from "../support/abortable-sleep.js";
import { SILENT_LOG, type Log } from "../support/log.js";
import { enterElection, withdraw, type Candidacy } from "./candidacy.js";
import { leaseUnanswered } from "./lease-keeper.js";
import { ElectionView } from "./election-view.js";

export interface LeaderElectionOptions {
  readonly client: Etcd3;
  /** The etcd key prefix of this installation (`etcd.prefix`, e.g. "/kintsugi/"); the election lives under `leader/`. */
  readonly prefix: string;
  /** Stored in this replica's election key: what every replica shows as the leader's name. */
  readonly replicaName: string;
  readonly leaseTtlSeconds: number;
  readonly log?: Log;
  /** A monotonic clock in milliseconds; default `performance.now`. */
  readonly clock?: () => number;
  /** The pause before trying etcd again after a failure; default 500 ms. */
  readonly retryMs?: number;
}

/**
 * This replica's part in electing one leader among the replicas on one etcd (CKE's pattern: etcd's
 * `concurrency.Election`): a lease kept alive, a key per candidate under `<prefix>leader/` attached to it, and the
 * candidate whose key etcd created first leads. Every replica watches the whole election prefix, so each knows who
 * leads; the deletion of its predecessor's key is what makes the next candidate the leader.
 *
 * The leader is deposed when its lease is lost (etcd unreachable for a whole TTL, or etcd says the lease is gone)
 * or its key is deleted. It stops leading at that instant ({@link isLeader} and {@link guard} read the lease's
 * deadline on every call, whatever timers have run), then leaves the election and campaigns again with a new lease.
 */
export class LeaderElection {
  /** The leader guard of writes: this replica's election key while it leads, null otherwise. */
  readonly guard: WriteGuard;
  private readonly options: LeaderElectionOptions;
  private readonly log: Log;
  private readonly clock: () => number;
  private readonly retryMs: number;
  private readonly view: ElectionView;
  private readonly abort = new AbortController();
  private readonly electedListeners = new Set<() => void>();
  private readonly deposedListeners = new Set<(reason: string) => void>();
  private own: Candidacy | null = null;
  private endOwn: ((reason: string) => void) | null = null;
  private leading = false;
  private campaigning: Promise<void> | null = null;

  constructor(options: LeaderElectionOptions) {
    this.options = options;
    this.log = options.log ?? SILENT_LOG;
    this.clock = options.clock ?? (() => performance.now());
    this.retryMs = options.retryMs ?? 500;
    this.view = new ElectionView({
      client: options.client,
      electionPrefix: this.electionPrefix,
      retryMs: this.retryMs,
      onError: (error) => this.log.warn("the leader election's watch on etcd broke; reading it again", { error: String(error) }),
    });
    this.view.onChange(() => this.update("the election changed"));
    this.guard = {
      current: () => {
        const own = this.own;
        return own !== null && this.isLeader() ? { key: own.key, createRevision: own.createRevision.toString() } : null;
      },
    };
  }

  /** Where the candidates' keys live: `<prefix>leader/`. */
  get electionPrefix(): string {
    return `${this.options.prefix}leader/`;
  }

  /** Joins the election (and keeps joining it again after every loss) until {@link stop}. Returns at once. */
  start(): void {
    if (this.campaigning !== null || this.abort.signal.aborted) return;
    this.view.start();
    this.campaigning = this.campaign();
  }

  /** Resigns: stops leading at once, deletes this replica's key and revokes its lease, so a successor takes over. */
  async stop(): Promise<void> {
    this.abort.abort();
    this.endOwn?.("this replica resigned");
    await this.campaigning;
    await this.view.stop();
  }

  /** Whether this replica leads now: its key is the first, and its lease is certainly alive at this instant. */
  isLeader(): boolean {
    const own = this.own;
    if (own === null) return false;
    return leadsAt(this.view.current(), { key: own.key, createRevision: own.createRevision, leaseValidUntil: own.lease.validUntil() }, this.clock());
  }

  /**
   * The name the leading replica gave, or null when none is known: this replica's own while it leads (its lease
   * confirms it), else the view's leader while the view is confirmed (a stale view names nobody). Any process that
   * can write the election prefix can choose it: it comes escaped and cut (see shownName), and is quoted where it
   * is printed.
   */
  leader(): string | null {
    if (this.isLeader()) return this.options.replicaName;
    if (!this.view.confirmed()) return null;
    return leaderOf(this.view.current().values())?.name ?? null;
  }

  /** Calls `listener` each time this replica becomes the leader; returns how to stop. */
  onElected(listener: () => void): () => void {
    this.electedListeners.add(listener);
    return () => this.electedListeners.delete(listener);
  }

  /** Calls `listener` with the reason each time this replica stops being the leader; returns how to stop. */
  onDeposed(listener: (reason: string) => void): () => void {
    this.deposedListeners.add(listener);
    return () => this.deposedListeners.delete(listener);
  }

  private async campaign(): Promise<void> {
    const { signal } = this.abort;
    let failing = false;
    while (!signal.aborted) {
      let end!: (reason: string) => void;
      const ended = new Promise<string>((resolve) => (end = resolve));
      let candidacy: Candidacy;
      try {
        candidacy = await enterElection({
          client: this.options.client,
          electionPrefix: this.electionPrefix,
          replicaName: this.options.replicaName,
          ttlSeconds: this.options.leaseTtlSeconds,
          clock: this.clock,
          onLeaseLost: (reason) => end(reason),
        });
      } catch (error) {
        // Once per outage: the loop tries again every retryMs for as long as etcd is away.
        if (!signal.aborted && !failing) this.log.warn("cannot join the leader election on etcd; trying again", { error: String(error) });
        failing = true;
        await abortableSleep(this.retryMs, signal);
        continue;
      }
      failing = false;
      this.own = candidacy;
      this.endOwn = end;
      if (signal.aborted) end("this replica resigned");
      this.log.info("joined the leader election", { key: candidacy.key, replica: this.options.replicaName });
      this.update("the election changed");
      const reason = await ended;
      this.own = null;
      this.endOwn = null;
      this.update(reason);
      await withdraw(this.options.client, candidacy);
    }
  }

  /** Notices what changed: a deleted own key ends the candidacy; a change of leadership is announced. */
  private update(reason: string): void {
    const own = this.own;
    let why = reason;
    if (own !== null && ownKeyDeleted(this.view.current(), this.view.revision(), { key: own.key, createRevision: own.createRevision, leaseValidUntil: 0 })) {
      why = "this replica's election key was deleted";
      this.endOwn?.(why);
    } else if (own !== null && this.clock() >= own.lease.validUntil()) {
      why = leaseUnanswered(own.lease.id, this.options.leaseTtlSeconds);
    }
    const leads = this.isLeader();
    if (leads && !this.leading) {
      this.leading = true;
      this.log.info("this replica is now the leader", { key: own?.key, replica: this.options.replicaName });
      for (const listener of this.electedListeners) this.announce(() => listener());
    } else if (!leads && this.leading) {
      this.leading = false;
      this.log.warn("this replica is no longer the leader", { reason: why });
      for (const listener of this.deposedListeners) this.announce(() => listener(why));
    }
  }

  private announce(call: () => void): void {
    try {
      call();
    } catch (error) {
      this.log.warn("a leader election listener failed", { error: String(error) });
    }
  }
}
