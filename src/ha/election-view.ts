import type { Etcd3, IKeyValue } from "etcd3";
import type { ElectionCandidate } from "../domain/service/leadership.js";
import { escapeControlCharacters } from "../domain/shared/untrusted-text.js";
import { abortableSleep } from "../support/abortable-sleep.js";

export interface ElectionViewOptions {
  readonly client: Etcd3;
  /** Where the candidates' keys live, ending in "/". */
  readonly electionPrefix: string;
  /** How long to wait before reading again after etcd could not be read or the watch broke. */
  readonly retryMs: number;
  /** Called with the first error of each outage (not again until a read succeeds). */
  readonly onError: (error: unknown) => void;
}

// A watch whose cancellation etcd does not confirm in this time is dropped; closing the client ends it.
const CANCEL_WAIT_MS = 1000;

/** The longest replica name shown (what `leader_election.replica_name` allows); a longer one is cut, with "…". */
export const SHOWN_NAME_LIMIT = 128;

/**
 * The name a candidate's key holds, made safe to show: any process with write access to the prefix can put a key
 * there, and the leader's name goes into /health (unauthenticated), NOT_LEADER messages and terminals. Control
 * characters are escaped (`\x1b`) and the text is cut at {@link SHOWN_NAME_LIMIT} characters.
 */
export function shownName(value: Buffer): string {
  const text = value.subarray(0, SHOWN_NAME_LIMIT * 4).toString("utf8");
  const chars = [...text];
  const cut = chars.length > SHOWN_NAME_LIMIT || value.length > SHOWN_NAME_LIMIT * 4;
  return `${escapeControlCharacters(chars.slice(0, SHOWN_NAME_LIMIT).join(""))}${cut ? "…" : ""}`;
}

const candidateOf = (kv: IKeyValue): ElectionCandidate => ({
  key: kv.key.toString(),
  createRevision: BigInt(kv.create_revision),
  name: shownName(kv.value),
});

/**
 * Every candidate of the election as etcd has them, on every replica: one read of the election prefix, then a
 * watch from the next revision, so no change falls between them. When the watch breaks, the view reads the
 * prefix again and starts a new watch, rather than trusting a resumed stream not to have skipped a deletion.
 */
export class ElectionView {
  private readonly options: ElectionViewOptions;
  private candidates = new Map<string, ElectionCandidate>();
  private seenRevision = 0n;
  private readonly listeners = new Set<() => void>();
  private readonly abort = new AbortController();
  private running: Promise<void> | null = null;
  private failing = false;

  constructor(options: ElectionViewOptions) {
    this.options = options;
  }

  /** The candidates as of {@link revision}, by key. */
  current(): ReadonlyMap<string, ElectionCandidate> {
    return this.candidates;
  }

  /** Whether the view is etcd's as of now: read, and its watch not broken since (else it may be stale). */
  confirmed(): boolean {
    return !this.failing && this.seenRevision > 0n;
  }

  /** The etcd revision the view has caught up with (0 before the first read). */
  revision(): bigint {
    return this.seenRevision;
  }

  /** Calls `listener` after every change of the view; returns how to stop. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    while (!signal.aborted) {
      try {
        const read = await this.options.client.getAll().prefix(this.options.electionPrefix).exec();
        if (signal.aborted) break;
        this.candidates = new Map(read.kvs.map((kv) => [kv.key.toString(), candidateOf(kv)]));
        this.seenRevision = BigInt(read.header.revision);
        this.failing = false;
        this.changed();
        await this.watchFrom(this.seenRevision + 1n, signal);
      } catch (error) {
        if (!signal.aborted && !this.failing) this.options.onError(error);
        this.failing = true;
      }
      await abortableSleep(this.options.retryMs, signal);
    }
  }

  /** Applies the watch's changes until it breaks or the view stops; resolves then, with the watch cancelled. */
  private async watchFrom(revision: bigint, signal: AbortSignal): Promise<void> {
    const watcher = this.options.client.watch().prefix(this.options.electionPrefix).startRevision(revision.toString()).watcher();
    let broken: unknown = null;
    let onAbort: () => void = () => undefined;
    await new Promise<void>((resolve) => {
      const end = (why: unknown) => {
        broken ??= why;
        resolve();
      };
      onAbort = () => end(null);
      watcher.on("put", (kv) => this.candidates.set(kv.key.toString(), candidateOf(kv)));
      watcher.on("delete", (kv) => this.candidates.delete(kv.key.toString()));
      // Runs after etcd3's own handler has emitted every put and delete of this response.
      watcher.on("data", (response) => {
        this.seenRevision = BigInt(response.header.revision);
        this.changed();
      });
      watcher.on("disconnected", (error) => end(error));
      watcher.on("error", (error) => end(error));
      if (signal.aborted) end(null);
      signal.addEventListener("abort", onAbort, { once: true });
    });
    signal.removeEventListener("abort", onAbort);
    const waited = new AbortController();
    await Promise.race([watcher.cancel().catch(() => undefined), abortableSleep(CANCEL_WAIT_MS, waited.signal)]);
    waited.abort();
    if (broken !== null && !signal.aborted) throw broken;
  }
}
