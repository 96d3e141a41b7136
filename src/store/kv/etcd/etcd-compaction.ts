import { KvCompactedError } from "../kv-driver.js";
import type { EtcdKvDriver } from "./etcd-kv-driver.js";
import type { Log } from "../../../support/log.js";
import { compactionSampleIntervalMs, planCompaction, type RevisionSample } from "../../../domain/service/etcd-compaction-plan.js";

/** `etcd.compaction-retention` (0: kintsugi does not compact); the rest for tests only. */
export interface EtcdCompactionSettings {
  readonly retentionMs: number;
  /** Default a tenth of min(retention, 1h), as etcd's own compactor. */
  readonly intervalMs?: number;
  readonly now?: () => number;
  /** Past this many revisions, an etcd that was never compacted is growing toward its backend quota. */
  readonly warnAboveRevision?: number;
}

interface EtcdCompactionOptions extends EtcdCompactionSettings {
  readonly driver: Pick<EtcdKvDriver, "get" | "compact" | "description">;
  /** A key that always exists once the store does (the schema key): reading it gives etcd's current revision. */
  readonly probeKey: string;
  readonly log: Log;
}

const UNCOMPACTED_REVISIONS_WARNING = 100_000;

const ROOT_ROLE_HINT =
  "with auth on, newer etcd permits compaction only to a user with the root role: grant it (etcdctl user grant-role USER root), or set " +
  "etcd.compaction-retention: off and start the etcd members with --auto-compaction-mode=periodic --auto-compaction-retention=1h";

/**
 * Whether anything compacts etcd, and kintsugi's own compaction of etcd's old revisions when `retentionMs` is not 0:
 * samples etcd's revision (a get of the schema key: sabakan's writes advance it too, unlike the mirror's) and compacts
 * to the revision planCompaction picks. etcd's revisions are cluster-wide, so this bounds every key's history
 * (sabakan's watch re-reads when compacted past, as the mirror does).
 *
 * Every replica runs it, leader or not (the store opens before the election): a compaction already done is taken as
 * done, so replicas learn of each other's; spaced by the plan's step, three replicas ask for about three an hour.
 * Failures are logged (a warning when they start or change) and never end the loop.
 */
export class EtcdCompaction {
  private samples: RevisionSample[] = [];
  private compacted: RevisionSample | null = null;
  private failure: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private current: Promise<void> | null = null;
  private stopped = false;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: EtcdCompactionOptions) {
    if (!Number.isFinite(options.retentionMs) || options.retentionMs < 0) {
      throw new Error(`the etcd compaction retention must be 0 (off) or a positive number of milliseconds, got ${options.retentionMs}`);
    }
    this.intervalMs = options.intervalMs ?? compactionSampleIntervalMs(options.retentionMs);
    this.now = options.now ?? Date.now;
  }

  /** Checks whether anything compacts etcd, then starts kintsugi's compaction if it is on. */
  async start(): Promise<void> {
    await this.checkSomethingCompacts();
    if (this.options.retentionMs > 0) this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.current;
  }

  /**
   * A read at revision 1 fails once anything has compacted etcd. When nothing has, etcd is past `warnAboveRevision`
   * revisions and kintsugi's compaction is off, says so at error level: etcd keeps every revision until its backend
   * quota, then refuses every write, sabakan's and CKE's included. Never fails the start.
   */
  private async checkSomethingCompacts(): Promise<void> {
    const { driver, log } = this.options;
    let revision: number;
    try {
      ({ revision } = await driver.get("checking whether etcd is compacted", this.options.probeKey, { revision: 1 }));
    } catch (err) {
      if (!(err instanceof KvCompactedError))
        log.warn("could not check whether etcd is compacted", { cause: err instanceof Error ? err.message : String(err) });
      return;
    }
    if (this.options.retentionMs > 0) {
      log.info("etcd has never been compacted; kintsugi compacts its old revisions (etcd.compaction-retention)", { revision });
    } else if (revision > (this.options.warnAboveRevision ?? UNCOMPACTED_REVISIONS_WARNING)) {
      log.error(
        "etcd has never been compacted and etcd.compaction-retention is off: nothing compacts it, so it keeps every " +
          "revision until it reaches its backend quota and refuses all writes; start the etcd members with " +
          '--auto-compaction-mode=periodic --auto-compaction-retention=1h, or set etcd.compaction-retention (e.g. "24h")',
        { description: driver.description, revision },
      );
    }
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.current = this.round().finally(() => {
        this.current = null;
        this.schedule(this.intervalMs);
      });
    }, delayMs);
    this.timer.unref();
  }

  private async round(): Promise<void> {
    const { driver, log } = this.options;
    const atMs = this.now();
    try {
      const { revision } = await driver.get("sampling etcd's revision for compaction", this.options.probeKey);
      const last = this.samples[this.samples.length - 1];
      // The earliest time a revision was seen is the one that matters: it was current from then on.
      if (last === undefined || revision > last.revision) this.samples.push({ atMs, revision });
      log.debug("sampled etcd's revision for compaction", { revision, atMs });
    } catch (err) {
      this.failed("etcd's revision could not be read for compaction", err);
      return;
    }
    const plan = planCompaction({ samples: this.samples, nowMs: atMs, retentionMs: this.options.retentionMs, compacted: this.compacted });
    this.samples = [...plan.keep];
    const target = plan.compactTo;
    if (target === null) return;
    try {
      await driver.compact("compacting etcd's old revisions", target.revision);
      this.compacted = target;
      this.recovered();
      log.info("compacted etcd's old revisions", {
        revision: target.revision,
        sampledAt: new Date(target.atMs).toISOString(),
        retentionMs: this.options.retentionMs,
      });
    } catch (err) {
      if (err instanceof KvCompactedError) {
        this.compacted = target;
        this.recovered();
        log.debug("etcd was already compacted past the revision (by etcd itself or another replica)", { revision: target.revision });
        return;
      }
      this.failed("etcd's old revisions could not be compacted", err);
    }
  }

  private failed(message: string, err: unknown): void {
    const cause = err instanceof Error ? err.message : String(err);
    const fields = { cause, ...(/permission denied/i.test(cause) && { hint: ROOT_ROLE_HINT }) };
    this.options.log[this.failure === cause ? "debug" : "warn"](message, fields);
    this.failure = cause;
  }

  private recovered(): void {
    if (this.failure !== null) this.options.log.info("etcd compaction works again", { after: this.failure });
    this.failure = null;
  }
}
