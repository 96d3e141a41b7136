import type { AutoRepairOutcome } from "../../domain/auto-repair-outcome.js";
import type { ClusterGeneration } from "../../domain/cluster/generation-record.js";
import type { HoldChange, RepairChange, StoreCommit } from "../store-port.js";
import type { Db } from "./database.js";

/** What one write has changed so far; the stores fill it in while its transaction runs. */
export interface CommitDraft {
  readonly entries: RepairChange[];
  outcome: AutoRepairOutcome | null;
  generation: ClusterGeneration | null;
  readonly settings: string[];
  readonly holds: HoldChange[];
}

type CommitListener = (commit: StoreCommit) => void;

const isEmpty = (d: CommitDraft) => d.entries.length === 0 && d.outcome === null && d.generation === null && d.settings.length === 0 && d.holds.length === 0;

/**
 * The SQLite stores' one way to write: each write is one transaction on the connection, and what it changed is
 * announced to the `onCommit` listeners once the transaction has committed, synchronously, before the write returns.
 * A write that throws (its `decide`, a constraint, the disk) rolls back and announces nothing; one that changed
 * nothing announces nothing either. Commits are announced in commit order: a listener that writes has its commit
 * announced after the one being announced has reached every listener.
 */
export class SqliteCommits {
  private readonly listeners = new Set<CommitListener>();
  private readonly unannounced: StoreCommit[] = [];
  private announcing = false;
  private writing = false;

  constructor(private readonly db: Db) {}

  /**
   * Runs `work` in one transaction, handing it the draft to record its changes in, then announces the draft.
   * Writes do not nest: `work` (and the `decide` functions it calls) must not start another write or transaction.
   */
  write<T>(work: (draft: CommitDraft) => T): T {
    // Inside another transaction this one would be a savepoint, announced before the outer one decides to commit.
    if (this.writing || this.db.inTransaction)
      throw new Error("a store write cannot start inside another write or transaction (a decide function must not write)");
    const draft: CommitDraft = { entries: [], outcome: null, generation: null, settings: [], holds: [] };
    this.writing = true;
    let result: T;
    try {
      result = this.db.transaction(() => work(draft))();
    } finally {
      this.writing = false;
    }
    if (!isEmpty(draft)) {
      const holds = draft.holds.length === 0 ? {} : { holds: draft.holds };
      this.announce({ entries: draft.entries, outcome: draft.outcome, generation: draft.generation, settings: draft.settings, ...holds });
    }
    return result;
  }

  /** Calls `listener` with every commit from now on; returns how to stop. */
  listen(listener: CommitListener): () => void {
    // Wrapped, so a listener added twice is called twice and each returned stop removes its own.
    const entry: CommitListener = (commit) => listener(commit);
    this.listeners.add(entry);
    return () => void this.listeners.delete(entry);
  }

  private announce(commit: StoreCommit): void {
    this.unannounced.push(commit);
    if (this.announcing) return;
    this.announcing = true;
    try {
      for (let next = this.unannounced.shift(); next !== undefined; next = this.unannounced.shift()) {
        for (const listener of [...this.listeners]) {
          try {
            listener(next);
          } catch (err) {
            // The write has committed: a failing listener must neither undo it in the caller's eyes nor starve the others.
            process.emitWarning(`a store commit listener failed: ${(err as Error).message}`, { code: "KINTSUGI_COMMIT_LISTENER" });
          }
        }
      }
    } finally {
      this.announcing = false;
    }
  }
}
