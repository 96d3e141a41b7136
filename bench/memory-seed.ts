// bench/memory's database at size, written with SQL into a SQLite file of the schema before the store core:
// migrations 1-12, which stay in the code after it. The same file serves both sides: the code before opens it as it
// is, the code after converts it on its first start; `kintsugi db copy` moves it into etcd for either.
import { openDatabase } from "../src/store/kv/sqlite/database.js";
import { MIGRATIONS } from "../src/store/kv/sqlite/old-tables/migrations/index.js";
import { seedOutcomes } from "./abuse-seed.js";
import { RECORDS_PER_REPAIR, seedHistory } from "./history-seed.js";

/** Entries listed in the queue (finished, as entries stay until deleted): the newest repairs of the history. */
export const LISTED_ENTRIES = 1_000;
const MIN = 60_000;
const OLD_SCHEMA = MIGRATIONS.slice(0, 12);

/** What a seeded file holds, for the bench to print and query. */
export interface MemorySeed {
  readonly historyRows: number;
  readonly outcomes: number;
  /** The index of the oldest listed entry (its history is ten records). */
  readonly firstListed: number;
  /** The times the history spans (epoch ms): repairStats asks for all of it. */
  readonly since: number;
  readonly until: number;
  readonly seconds: number;
}

/**
 * Writes `rows` history rows (bench/history-seed: one repair a minute, ten records each, ending before `now`), the
 * newest {@link LISTED_ENTRIES} repairs as succeeded entries (the older ones deleted long ago, as a year's queue is),
 * and, if `outcomes`, the 1,000 kept poll outcomes of 1,000 skipped machines each (bench/abuse-seed).
 */
export function seedMemoryDatabase(path: string, rows: number, outcomes: boolean, now: number): MemorySeed {
  const began = performance.now();
  const repairs = rows / RECORDS_PER_REPAIR;
  if (!Number.isInteger(repairs) || repairs < LISTED_ENTRIES)
    throw new Error(`history rows must be a multiple of 10 and at least ${LISTED_ENTRIES * 10}: ${rows}`);
  const since = now - (repairs + RECORDS_PER_REPAIR + 2) * MIN;
  const db = openDatabase(path, OLD_SCHEMA);
  try {
    db.pragma("synchronous = OFF");
    const until = seedHistory(db, rows, since);
    const insert = db.prepare(`INSERT INTO repair_entries (idx, address, serial, machine_type, operation, status, step, step_status, deleted,
      last_transition_time, drain_backoff_count, created_at, source) VALUES (?, ?, ?, 'qemu', 'unreachable', 'succeeded', 3, 'watching', 0, ?, 0, ?, 'sabakan')`);
    const firstListed = repairs - LISTED_ENTRIES + 1;
    db.transaction(() => {
      for (let e = firstListed; e <= repairs; e++) {
        const created = since + e * MIN;
        insert.run(e, `10.${(e >> 16) & 255}.${(e >> 8) & 255}.${e & 255}`, `s${e}`, created + RECORDS_PER_REPAIR * MIN, created);
      }
    })();
    if (outcomes) seedOutcomes(db, now);
    const count = (table: string) => db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
    return {
      historyRows: count("repair_history"),
      outcomes: count("auto_repair_outcomes"),
      firstListed,
      since,
      until,
      seconds: (performance.now() - began) / 1000,
    };
  } finally {
    db.close();
  }
}
