// A database's repair history at size, written straight into SQLite in one transaction (the runner would take years):
// shared by bench/stats and bench/abuse.
import { KEPT_FINISHED_REPAIRS } from "../src/domain/queue/finished-repair.js";
import type { Db } from "../src/store/kv/sqlite/database.js";

/** History records per repair: queued, eight processing steps (draining and watching in turn), succeeded or failed. */
export const RECORDS_PER_REPAIR = 10;
/** The newest repairs that also get a finished-repair record: as many as kintsugi keeps. */
export const KEPT = KEPT_FINISHED_REPAIRS;
const MIN = 60_000;

/**
 * Writes `rows` history rows into `db` (rows / 10 repairs of dequeued entries, one started a minute from `t0`, ten
 * records a minute apart) and the newest {@link KEPT} finished-repair records; returns a time just after the last.
 */
export function seedHistory(db: Db, rows: number, t0: number): number {
  const history = db.prepare(`INSERT INTO repair_history (entry_index, time, kind, reason, detail, status, step, step_status, deleted, actor)
    VALUES (?, ?, 'transition', 'step 1: repair command exited 0, watching', NULL, ?, ?, ?, 0, 'kintsugi')`);
  const finished = db.prepare(`INSERT INTO finished_repairs (seq, entry_index, address, machine_type, operation, source, created_at, finished_at, status, proof)
    VALUES (?, ?, ?, ?, ?, 'sabakan', ?, ?, ?, NULL)`);
  const repairs = rows / RECORDS_PER_REPAIR;
  db.transaction(() => {
    for (let e = 1; e <= repairs; e++) {
      const created = t0 + e * MIN;
      for (let k = 0; k < RECORDS_PER_REPAIR; k++) {
        const last = k === RECORDS_PER_REPAIR - 1;
        history.run(
          e,
          created + k * MIN,
          k === 0 ? "queued" : last ? "succeeded" : "processing",
          Math.max(0, (k - 1) >> 1),
          k % 2 === 1 ? "draining" : "watching",
        );
      }
      if (e > repairs - KEPT) {
        finished.run(
          e * RECORDS_PER_REPAIR,
          e,
          `10.${(e >> 16) & 255}.${(e >> 8) & 255}.${e & 255}`,
          ["qemu", "dell", "hpe"][e % 3],
          e % 7 === 0 ? "unreachable" : "unhealthy",
          created,
          created + RECORDS_PER_REPAIR * MIN,
          e % 11 === 0 ? "failed" : "succeeded",
        );
      }
    }
    // The entries these repairs had were handed out (and dequeued): the counter says so, as kintsugi's own would, or a
    // copy or the conversion to the key-value table refuses history of indexes never handed out.
    const handedOut = db.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'repair_entries'").pluck().get() as number | undefined;
    if (handedOut === undefined) db.prepare("INSERT INTO sqlite_sequence (name, seq) VALUES ('repair_entries', ?)").run(repairs);
    else if (handedOut < repairs) db.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = 'repair_entries'").run(repairs);
  })();
  return t0 + (repairs + RECORDS_PER_REPAIR + 1) * MIN;
}
