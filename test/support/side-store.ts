import type { RepairEntry } from "../../src/domain/repair-entry.js";
import { SqliteGenerationStore } from "../../src/store/sqlite/cluster-generation-store.js";
import { openDatabase, type Db } from "../../src/store/sqlite/database.js";
import { SqliteRepairEntryStore } from "../../src/store/sqlite/repair-entry-store.js";
import { SqliteCommits } from "../../src/store/sqlite/sqlite-commits.js";
import { NOW } from "./fixtures.js";

/** The SQLite stores over a connection of their own to a database file that a running kintsugi may hold. */
export interface SideStore {
  readonly db: Db;
  readonly entries: SqliteRepairEntryStore;
  readonly generations: SqliteGenerationStore;
  /** Rewrites entry `index` with `fields` as one `transition` (status, step, back-off: what the runner would write). */
  transition(index: number, fields: Partial<RepairEntry>, reason?: string): Promise<void>;
}

/**
 * Opens a second connection to the database at `path` (bypassing its lock, as another writer of the file would) and
 * runs `work` with the stores over it, then closes it. Tests play the runner's part this way; the running kintsugi
 * sees the commits in its next reads (its own listeners hear nothing of them).
 */
export async function withSideStore<T>(path: string, work: (side: SideStore) => Promise<T> | T): Promise<T> {
  const db = openDatabase(path);
  try {
    const commits = new SqliteCommits(db);
    const entries = new SqliteRepairEntryStore(db, commits);
    const transition = async (index: number, fields: Partial<RepairEntry>, reason = "seed") => {
      const changes = await entries.change(
        index,
        (current) => (current === null ? null : [{ entry: { ...current, ...fields }, kind: "transition", reason }]),
        NOW,
        "test",
      );
      if (changes.length === 0) throw new Error(`repair entry ${index} is not in the queue`);
    };
    return await work({ db, entries, generations: new SqliteGenerationStore(db, commits), transition });
  } finally {
    db.close();
  }
}
