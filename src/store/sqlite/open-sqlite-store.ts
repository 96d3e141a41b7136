import type { Constraints } from "../../domain/constraints.js";
import type { KintsugiStore } from "../store-port.js";
import { SqliteOutcomeStore } from "./auto-repair-outcome-store.js";
import { SqliteGenerationStore } from "./cluster-generation-store.js";
import { DatabaseHealth } from "./database-health.js";
import { openLockedDatabase } from "./database-lock.js";
import { SqliteMachineHoldStore } from "./machine-hold-store.js";
import { SqlitePollRecordStore } from "./poll-record-store.js";
import type { PollRecordsConfig } from "../../config/poll-records-schema.js";
import { SqliteRepairEntryStore } from "./repair-entry-store.js";
import { SqliteSettingsStore } from "./settings-store.js";
import { SqliteCommits } from "./sqlite-commits.js";
import { refuseUnfinishedCopy } from "./sqlite-copy-marker.js";
import { withStoreErrors } from "./store-error-boundary.js";

export interface SqliteStoreOptions {
  /** The database file, created on first open. */
  readonly path: string;
  /** The config file's constraints: they apply where no value was set through the API. */
  readonly initialConstraints?: Partial<Constraints>;
  /** How many finished-repair records are kept (default KEPT_FINISHED_REPAIRS; tests lower it). */
  readonly keepFinishedRepairs?: number;
  /** How long and how much of the poll records are kept (default DEFAULT_POLL_RECORDS). */
  readonly pollRecords?: PollRecordsConfig;
}

/**
 * Opens the SQLite backend: takes the database's lock (a second kintsugi on the same file is refused before it
 * writes anything), opens and migrates the file, refuses it when it holds an unfinished copy (`kintsugi db copy` cut
 * off or not verified: UnfinishedCopyError). Reads are synchronous; writes are synchronous transactions behind promises, each announced to `onCommit`
 * listeners as it commits. The lock makes this process the only writer, so `guarded` needs no guard. A busy or failing
 * file reaches callers as the store's errors (StoreBusyError, StoreUnavailableError), never as SQLite's.
 */
export function openSqliteStore(options: SqliteStoreOptions): KintsugiStore {
  const { db, close } = openLockedDatabase(options.path);
  try {
    refuseUnfinishedCopy(db);
    const commits = new SqliteCommits(db);
    const settings = new SqliteSettingsStore(db, commits, options.initialConstraints);
    const entries = new SqliteRepairEntryStore(db, commits, options.keepFinishedRepairs);
    const outcomes = new SqliteOutcomeStore(db, commits);
    const pollRecords = new SqlitePollRecordStore(db, options.pollRecords);
    const health = new DatabaseHealth(db);
    const store: KintsugiStore = withStoreErrors<KintsugiStore>({
      backend: "sqlite",
      entries: withStoreErrors(entries),
      settings: withStoreErrors(settings),
      outcomes: withStoreErrors(outcomes),
      finished: withStoreErrors(entries.finished),
      generations: withStoreErrors(new SqliteGenerationStore(db, commits)),
      holds: withStoreErrors(new SqliteMachineHoldStore(db, commits)),
      pollRecords: withStoreErrors(pollRecords),
      async enqueue(decide, now, actor) {
        return commits.write((draft) => {
          const decision = decide(entries.list());
          const changes = decision.add.map(({ entry, reason }) => entries.insert(draft, entry, reason, now, actor));
          const outcome = decision.outcome === null ? null : outcomes.append(draft, decision.outcome(changes.map((c) => c.entry)));
          if (decision.pollRecord) pollRecords.append("intake", decision.pollRecord);
          if (decision.remediationRecord) pollRecords.append("health-check", decision.remediationRecord);
          return { changes, outcome };
        });
      },
      guarded: () => store,
      onCommit: (listener) => commits.listen(listener),
      health: () => ({ backend: "sqlite", ...health.check() }),
      async close() {
        close();
      },
    });
    return store;
  } catch (err) {
    close();
    throw err;
  }
}
