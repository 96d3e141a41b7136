import { randomUUID } from "node:crypto";
import { NotLeaderError, StoreConflictError, StoreLimitError, StoreUnavailableError, type WriteGuard } from "../store-port.js";
import type { KeyRange, KvCompare, KvDriver, KvPair, KvTxnLimits, KvTxnResult } from "../kv/kv-driver.js";
import { largestFitting, overLimit } from "./write-limits.js";
import { encodeValue } from "./store-values.js";
import type { StoreMirror } from "./store-mirror.js";
import type { MirrorFeed } from "./mirror-feed.js";

/**
 * One attempt at a write, decided on the mirror: the keys it compares (mod revision, 0: absent), what it puts and
 * deletes, and its result. Each attempt stores a fresh write id in `stamp`: finding it there after a failed compare
 * means an earlier try of the same transaction (retried inside the client after a lost answer) did commit.
 */
export interface WritePlan<T> {
  readonly compares: ReadonlyArray<{ readonly key: string; readonly modRevision: number }>;
  readonly puts: ReadonlyArray<{ readonly key: string; readonly value: string }>;
  readonly deletes?: readonly KeyRange[];
  readonly stamp: string;
  readonly result: T;
}

/** What a build returns when there is nothing to write. */
export interface NoWrite<T> {
  readonly none: T;
}

/** Commits one part of a longer write inside the turn that {@link StoreWriter.inTurn} holds. */
export type CommitPart = <T>(what: string, build: (writeId: string) => WritePlan<T> | NoWrite<T>) => Promise<T>;

const WRITE_ATTEMPTS = 8;

/**
 * A write that compares `key` (its revision as the mirror has it, `mirrored`) and rewrites it with `value` and the
 * attempt's write id, which stamps it: the head of an area, or a setting. `parts` are the rest of the write.
 */
export function stampedWrite<T>(
  key: string,
  mirrored: { readonly modRevision: number } | null | undefined,
  writeId: string,
  value: object,
  parts: Pick<WritePlan<T>, "puts" | "deletes">,
  result: T,
): WritePlan<T> {
  return {
    compares: [{ key, modRevision: mirrored?.modRevision ?? 0 }],
    puts: [...parts.puts, { key, value: encodeValue({ w: writeId, ...value }) }],
    deletes: parts.deletes ?? [],
    stamp: key,
    result,
  };
}

/**
 * Commits writes as driver transactions with compare-and-swap, optionally guarded by a leader's election key. A
 * failed compare waits until the mirror has what the transaction saw, then decides again; a write resolves once the
 * mirror applied its revision.
 */
export class StoreWriter {
  constructor(
    private readonly driver: KvDriver,
    private readonly mirror: StoreMirror,
    private readonly feed: MirrorFeed,
    private readonly guard: WriteGuard | null = null,
    private readonly turns: { last: Promise<unknown> } = { last: Promise.resolve() },
    readonly replica: string | null = null,
  ) {}

  get limits(): KvTxnLimits {
    return this.driver.limits;
  }

  /** The same writer, sharing its turns, with every write also requiring `guard`. */
  guarded(guard: WriteGuard | null, replica: string | null = this.replica): StoreWriter {
    return new StoreWriter(this.driver, this.mirror, this.feed, guard, this.turns, replica);
  }

  /** Whether `plan` fits in one transaction (its guard counted). */
  fits(plan: Pick<WritePlan<unknown>, "compares" | "puts" | "deletes">): boolean {
    return overLimit(plan, this.guard !== null, this.driver.limits) === null;
  }

  /**
   * Commits one write after this replica's earlier writes have ended: they would otherwise all decide on the same
   * mirror and compete for the same head, and a burst of them would run some out of attempts.
   */
  write<T>(what: string, build: (writeId: string) => WritePlan<T> | NoWrite<T>): Promise<T> {
    return this.inTurn((commit) => commit(what, build));
  }

  /**
   * Writes every item `pick` returns, in as many writes as the driver's limits need (and at most `most` items each):
   * each picks again on the mirror and writes the most of the first items that fit. A written item is no longer
   * picked, so each write makes progress. A turn of the event loop between writes: on SQLite a run of them in one go
   * held /health.
   */
  async inParts<T, R>(
    what: string,
    pick: () => readonly T[],
    plan: (items: readonly T[], writeId: string) => WritePlan<readonly R[]>,
    most = Number.POSITIVE_INFINITY,
  ): Promise<R[]> {
    const written: R[] = [];
    for (;;) {
      const part = await this.write<{ readonly written: readonly R[]; readonly more: boolean } | null>(what, (writeId) => {
        const picked = pick();
        if (picked.length === 0) return { none: null };
        const fitting = largestFitting(
          picked.length,
          Math.min(most, this.limits.maxTxnOps),
          (n) => plan(picked.slice(0, n), writeId),
          (p) => this.fits(p),
        );
        return { ...fitting.plan, result: { written: fitting.plan.result, more: fitting.taken < picked.length } };
      });
      written.push(...(part?.written ?? []));
      if (!part?.more) return written;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Runs `body` in one turn: the parts it commits (each a transaction) follow each other with no other write of this replica between. */
  inTurn<T>(body: (commit: CommitPart) => Promise<T>): Promise<T> {
    const mine = this.turns.last.then(() => body((what, build) => this.attempt(what, build)));
    this.turns.last = mine.catch(() => undefined);
    return mine;
  }

  private async attempt<T>(what: string, build: (writeId: string) => WritePlan<T> | NoWrite<T>): Promise<T> {
    for (let attempt = 1; attempt <= WRITE_ATTEMPTS; attempt++) {
      const holder = this.guard === null ? null : this.guard.current();
      if (this.guard !== null && holder === null) throw new NotLeaderError(`${what}: this replica is not the leader; nothing was written`);
      const writeId = randomUUID();
      const plan = build(writeId);
      if ("none" in plan) return plan.none;
      const response = await this.commit(what, plan, holder);
      if (response.succeeded) {
        await this.committed(what, response.revision);
        return plan.result;
      }
      const [guardRead, ...reads] = response.reads;
      if (holder !== null && String(guardRead?.createRevision) !== holder.createRevision) {
        throw new NotLeaderError(`${what}: this replica lost its leadership (election key ${holder.key} is gone or replaced); nothing was written`);
      }
      const own = reads.find((kv) => kv != null && kv.key === plan.stamp && stampOf(kv) === writeId);
      if (own) {
        await this.committed(what, own.modRevision);
        return plan.result;
      }
      // Decide again once the mirror has moved on from what this attempt compared, for every key that failed (a
      // deleted key included, which a wait for a revision could not express).
      const changed = plan.compares.filter((c, i) => c.modRevision !== (reads[i]?.modRevision ?? 0));
      await this.feed.until(() => changed.every((c) => this.mirror.modRevision(c.key) !== c.modRevision), `the changes that conflicted with ${what}`);
    }
    throw new StoreConflictError(`${what}: kept conflicting with concurrent writes (${WRITE_ATTEMPTS} attempts); nothing was written`);
  }

  private async committed(what: string, revision: number): Promise<void> {
    try {
      await this.feed.reached(revision);
    } catch (err) {
      throw new StoreUnavailableError(`${what}: committed at revision ${revision}, but ${(err as Error).message}`, { cause: err });
    }
  }

  private async commit<T>(what: string, plan: WritePlan<T>, holder: ReturnType<WriteGuard["current"]>): Promise<KvTxnResult> {
    const [first] = plan.compares;
    if (first === undefined) throw new Error(`${what}: a write must compare at least one key`);
    const over = overLimit(plan, holder !== null, this.driver.limits);
    if (over !== null) throw new StoreLimitError(`${what}: ${over}; nothing was written`);
    const compares: KvCompare[] = plan.compares.map((c) => ({ key: c.key, target: "mod", revision: c.modRevision }));
    if (holder !== null) compares.push({ key: holder.key, target: "create", revision: Number(holder.createRevision) });
    // On a failed compare, read back what was compared: the guard key first (this.guard's or a placeholder).
    return this.driver.txn(what, {
      compares,
      puts: plan.puts,
      deletes: plan.deletes ?? [],
      reads: [holder?.key ?? first.key, ...plan.compares.map((c) => c.key)],
    });
  }
}

function stampOf(kv: KvPair): string | null {
  try {
    const w = (JSON.parse(kv.value.toString("utf8")) as { w?: unknown }).w;
    return typeof w === "string" ? w : null;
  } catch {
    return null;
  }
}
