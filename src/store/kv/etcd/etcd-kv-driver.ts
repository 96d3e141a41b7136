import type { Etcd3, IKeyValue, IWatchResponse, Watcher } from "etcd3";
import { StoreLimitError } from "../../store-errors.js";
import type { StoreHealth } from "../../store-port.js";
import { EtcdAvailability, type CallOptions } from "./etcd-availability.js";
import {
  KvCompactedError,
  keyRange,
  type KeyRange,
  type KvDriver,
  type KvEvent,
  type KvPair,
  type KvRangeOptions,
  type KvRangeResult,
  type KvTxn,
  type KvTxnLimits,
  type KvTxnResult,
  type KvWatch,
  type KvWatchSink,
} from "../kv-driver.js";
import type { Log } from "../../../support/log.js";

export interface EtcdKvDriverOptions {
  readonly client: Etcd3;
  /** A key that always exists once the store does (the schema key): what the outage probe reads. */
  readonly probeKey: string;
  readonly endpoints: readonly string[];
  readonly timeoutMs: number;
  readonly limits: KvTxnLimits;
  readonly log: Log;
}

const pairOf = (kv: IKeyValue): KvPair => ({
  key: kv.key.toString("utf8"),
  value: kv.value,
  createRevision: Number(kv.create_revision),
  modRevision: Number(kv.mod_revision),
});

/** etcd's answers (not outages): a transaction over its limits, a refused compaction, a revision compacted away. */
const says = (pattern: RegExp) => (err: unknown) => pattern.test(err instanceof Error ? err.message : String(err));
const isLimitRefusal = says(/too many operations in txn request|request is too large|larger than max/i);
const isCompactionRefusal = says(/future revision|permission denied/i);
const isCompacted = says(/compacted/i);

/** The etcd driver: every call carries a deadline; a failed one becomes StoreUnavailableError (see EtcdAvailability). */
export class EtcdKvDriver implements KvDriver {
  readonly backend = "etcd" as const;
  readonly singleWriter = false;
  readonly description: string;
  readonly limits: KvTxnLimits;
  readonly timeoutMs: number;
  private readonly client: Etcd3;
  private readonly availability: EtcdAvailability;
  private readonly watchers = new Set<Watcher>();
  private readonly log: Log;

  constructor(options: EtcdKvDriverOptions) {
    this.client = options.client;
    this.log = options.log;
    this.limits = options.limits;
    this.timeoutMs = options.timeoutMs;
    this.description = `etcd on ${options.endpoints.join(",")}`;
    this.availability = new EtcdAvailability(
      options.endpoints,
      options.timeoutMs,
      (call) => options.client.get(options.probeKey).options(call).exec(),
      options.log,
    );
  }

  async get(what: string, key: string, options: { readonly revision?: number } = {}): Promise<{ kv: KvPair | null; revision: number }> {
    const { kvs, revision } = await this.range(what, keyRange(key), { limit: 1, revision: options.revision });
    return { kv: kvs[0] ?? null, revision };
  }

  async range(what: string, range: KeyRange, options: KvRangeOptions = {}): Promise<KvRangeResult> {
    const response = await this.call(what, (o) =>
      // The builder's keys() drops `more` and the header: the raw request keeps both.
      this.client.kv.range(
        {
          key: Buffer.from(range.start),
          range_end: Buffer.from(range.end),
          limit: options.limit ?? 0,
          revision: options.revision ?? 0,
          keys_only: options.keysOnly === true,
        },
        o,
      ),
    );
    return { kvs: response.kvs.map(pairOf), more: response.more, revision: Number(response.header.revision) };
  }

  count(what: string, range: KeyRange): Promise<number> {
    return this.call(what, (o) => this.client.getAll().inRange(range).options(o).count());
  }

  async txn(what: string, txn: KvTxn): Promise<KvTxnResult> {
    // The raw request: the builder wants a first compare, and a transaction may have none (a copy's marker write does).
    const request = {
      compare: txn.compares.map((c) =>
        c.target === "mod"
          ? { key: Buffer.from(c.key), target: "Mod" as const, result: "Equal" as const, mod_revision: c.revision }
          : { key: Buffer.from(c.key), target: "Create" as const, result: "Equal" as const, create_revision: c.revision },
      ),
      success: [
        ...txn.puts.map((p) => ({ request_put: { key: Buffer.from(p.key), value: Buffer.from(p.value) } })),
        ...txn.deletes.map((r) => ({ request_delete_range: { key: Buffer.from(r.start), range_end: Buffer.from(r.end) } })),
      ],
      failure: txn.reads.map((key) => ({ request_range: { key: Buffer.from(key) } })),
    };
    const response = await this.call(what, (o) => this.client.kv.txn(request, o), {
      // etcd answered, with a refusal: nothing of this write was committed.
      refusal: (err) =>
        isLimitRefusal(err)
          ? new StoreLimitError(`${what}: etcd refused the transaction as too large (${(err as Error).message}); nothing was written`, { cause: err })
          : null,
      // The client holds off a host after consecutive failures (its circuit breaker): such a call was never sent.
      outage: (err) =>
        typeof err === "object" && err !== null && "isBrokenCircuitError" in err
          ? `${what}; it was not sent, nothing was written`
          : `${what}; it may or may not have been committed`,
    });
    const revision = Number(response.header.revision);
    if (response.succeeded) return { succeeded: true, revision, reads: [] };
    const reads = response.responses.map((r) => {
      const kv = r.response_range?.kvs[0];
      return kv === undefined ? null : pairOf(kv);
    });
    return { succeeded: false, revision, reads };
  }

  async watch(range: KeyRange, fromRevision: number, sink: KvWatchSink): Promise<KvWatch> {
    const watcher = this.client.watch().inRange(range).startRevision(String(fromRevision)).watcher();
    this.watchers.add(watcher);
    let started: { resolve: () => void; reject: (err: Error) => void } | null = null;
    const connected = new Promise<void>((resolve, reject) => (started = { resolve, reject }));
    // Listeners go on before the watcher can emit anything (create() would attach them a tick too late).
    watcher.on("data", (res: IWatchResponse) => this.deliver(res, sink));
    watcher.on("disconnected", (err: Error) => {
      // etcd3 resumes from the revision after the newest header it saw, which can be past events it never
      // delivered (a catch-up batch carries the current revision); resume from the sink's own revision instead.
      watcher.request.start_revision = String(sink.resumeFrom());
      this.availability.watchLost(err.message);
    });
    watcher.on("connected", () => {
      this.availability.watchRestored();
      started?.resolve();
      started = null;
    });
    watcher.on("error", (err: Error) => {
      if (started !== null) {
        started.reject(err);
        started = null;
        return;
      }
      this.watchers.delete(watcher);
      this.availability.watchLost(err.message);
      sink.lost(isCompacted(err) ? new KvCompactedError(err.message, { cause: err }) : err);
    });
    const timer = setTimeout(() => started?.reject(new Error(`no answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    const cancel = async () => {
      this.watchers.delete(watcher);
      await this.cancel(watcher);
    };
    try {
      await connected;
    } catch (err) {
      started = null;
      this.watchers.delete(watcher);
      void watcher.cancel();
      throw this.availability.failed(`watching ${range.start}`, err);
    } finally {
      clearTimeout(timer);
    }
    return { cancel };
  }

  /** Forgets revisions older than `revision` (etcd's compaction: SQLite keeps none, and kintsugi compacts only etcd). */
  async compact(what: string, revision: number): Promise<void> {
    await this.call(what, (o) => this.client.kv.compact({ revision: String(revision) }, o), {
      // etcd permits Compact only to root: a refusal is an answer, so GET /health stays as it is.
      refusal: (err) =>
        isCompactionRefusal(err) ? new Error(`${what}: etcd refused the compaction to revision ${revision} (${(err as Error).message})`, { cause: err }) : null,
    });
  }

  health(): StoreHealth {
    return this.availability.health();
  }

  async close(): Promise<void> {
    this.availability.close();
    await Promise.all([...this.watchers].map((w) => this.cancel(w)));
    this.watchers.clear();
  }

  /**
   * One call with a deadline. An answer marks etcd reachable, a refusal too: a revision compacted away, or what
   * `refusal` makes an error of; any other failure is an outage, named by `outage`.
   */
  private async call<T>(
    what: string,
    run: (options: CallOptions) => Promise<T>,
    { refusal, outage }: { refusal?: (err: unknown) => Error | null; outage?: (err: unknown) => string } = {},
  ): Promise<T> {
    try {
      const result = await run(this.availability.callOptions());
      this.availability.answered();
      return result;
    } catch (err) {
      const refused = isCompacted(err) ? new KvCompactedError(`${what}: ${(err as Error).message}`, { cause: err }) : (refusal?.(err) ?? null);
      if (refused === null) throw this.availability.failed(outage?.(err) ?? what, err);
      this.availability.answered();
      throw refused;
    }
  }

  /** A cancel waits for etcd's answer; a dead etcd must not hold up a shutdown. */
  private async cancel(watcher: Watcher): Promise<void> {
    await Promise.race([watcher.cancel(), new Promise((resolve) => setTimeout(resolve, this.timeoutMs).unref())]);
  }

  /** The events of one watch response, one revision at a time (etcd never splits a revision across responses). */
  private deliver(res: IWatchResponse, sink: KvWatchSink): void {
    let group: KvEvent[] = [];
    let revision = 0;
    for (const event of res.events) {
      const modRevision = Number(event.kv.mod_revision);
      if (modRevision !== revision && group.length > 0) this.tell(sink, revision, group);
      if (modRevision !== revision) group = [];
      revision = modRevision;
      group.push({ type: event.type === "Put" ? "put" : "delete", key: event.kv.key.toString("utf8"), value: event.kv.value, modRevision });
    }
    if (group.length > 0) this.tell(sink, revision, group);
  }

  /** A sink that throws must not end the watch (the error would escape into the client's stream). */
  private tell(sink: KvWatchSink, revision: number, events: readonly KvEvent[]): void {
    try {
      sink.events(revision, events);
    } catch (err) {
      this.log.error("a watch's receiver failed on a revision", { revision, error: (err as Error).message });
    }
  }
}
