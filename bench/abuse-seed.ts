// The database bench/abuse serves from: what a data center's kintsugi holds after a year, written straight into
// SQLite (the runner and the poller would take that year): 1,000,000 history rows with their kept finished repairs,
// the 1,000 kept poll outcomes each listing its 1,000 skipped machines, and a year of poll records, one a minute.
import type { PollRecord } from "../src/domain/replay/poll-record.js";
import { KEPT_OUTCOMES } from "../src/domain/intake/auto-repair-outcome.js";
import { encodePollRecord } from "../src/store/poll-record-schema.js";
import { openDatabase, type Db } from "../src/store/kv/sqlite/database.js";
import { seedHistory } from "./history-seed.js";

export const HISTORY_ROWS = 1_000_000;
export const SKIPPED_PER_OUTCOME = 1_000;
/** The replay reaches 31 days back: the polls of that month answer this many unhealthy machines each. */
export const MACHINES_PER_RECENT_POLL = 100;
const MIN = 60_000;
const DAY = 86_400_000;
/** How far back `simulateAutoRepair`'s `since` may reach (REPLAY_BOUNDS.maxRangeMs). */
export const REPLAY_DAYS = 31;

/** The fleet's addresses as the bench's sabakan gives them: machine i of 10,000. */
export const fleetAddress = (i: number) => `10.${Math.floor(i / 250)}.${i % 250}.1`;
export const fleetSerial = (i: number) => `s${String(i).padStart(5, "0")}`;

/** What {@link seedAbuseDatabase} wrote, for the bench to print. */
export interface SeededSizes {
  readonly historyRows: number;
  readonly outcomes: number;
  readonly pollRecords: number;
  readonly pollRecordMegabytes: number;
  readonly seconds: number;
}

/** The 1,000 kept poll outcomes up to `now`, a minute apart, each listing {@link SKIPPED_PER_OUTCOME} skipped machines. */
export function seedOutcomes(db: Db, now: number): void {
  const insert =
    db.prepare(`INSERT INTO auto_repair_outcomes (time, trigger, machines_seen, enqueued, skipped, short_circuit, error, skipped_total, skipped_by_kind)
    VALUES (?, 'schedule', 10000, '[]', ?, NULL, NULL, ?, ?)`);
  const skipped = JSON.stringify(
    Array.from({ length: SKIPPED_PER_OUTCOME }, (_, i) => ({
      serial: fleetSerial(i),
      address: fleetAddress(i),
      state: "UNHEALTHY",
      reason: "the repair queue is full (maximum-repair-queue-entries: 10)",
      kind: "queue_limit",
      rack: Math.floor(i / 30),
    })),
  );
  const byKind = JSON.stringify([{ kind: "queue_limit", machines: 2_000 }]);
  db.transaction(() => {
    for (let i = 0; i < KEPT_OUTCOMES; i++) insert.run(now - (KEPT_OUTCOMES - i) * MIN, skipped, 2_000, byKind);
  })();
}

function pollRecord(time: number, machines: number): PollRecord {
  const n = Array.from({ length: machines }, (_, i) => (i * 97) % 10_000);
  return {
    time,
    machines: {
      serial: n.map(fleetSerial),
      ipv4: n.map(fleetAddress),
      rack: n.map((i) => Math.floor(i / 30)),
      types: ["IPMI-2.0"],
      type: n.map(() => 0),
      state: n.map((_, k) => 2 + (k % 2)),
      seconds: n.map((_, k) => 60 + k * 7),
      standing: n.map(() => 1),
    },
    queue: [],
    held: [],
    constraints: { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 300, maximumUnhealthyMachinesPerRack: 2 },
    enqueued: [],
    shortCircuited: false,
  };
}

/**
 * A poll a minute for 365 days up to `now`. The replay's 31 days each answer {@link MACHINES_PER_RECENT_POLL}
 * unhealthy machines (each record encoded with its own time); the older eleven months are quiet polls that share one
 * body (nothing reads them: the replay cannot reach them; they weigh on the table as a year does).
 */
function seedPollRecords(db: Db, now: number): void {
  const insert = db.prepare("INSERT INTO poll_records (kind, time, bytes, body) VALUES ('intake', ?, ?, ?)");
  const quiet = encodePollRecord(pollRecord(now - 365 * DAY, 0));
  const recentFrom = now - REPLAY_DAYS * DAY;
  db.transaction(() => {
    for (let time = now - 365 * DAY; time < now; time += MIN) {
      const body = time < recentFrom ? quiet : encodePollRecord(pollRecord(time, MACHINES_PER_RECENT_POLL));
      insert.run(time, body.length, body);
    }
  })();
}

/** Writes the database at `path` as of `now` (epoch ms) and returns what it holds. */
export function seedAbuseDatabase(path: string, now: number): SeededSizes {
  const began = performance.now();
  const db = openDatabase(path);
  try {
    seedHistory(db, HISTORY_ROWS, now - (HISTORY_ROWS / 10 + 20) * MIN);
    seedOutcomes(db, now);
    seedPollRecords(db, now);
    const polls = db.prepare("SELECT COUNT(*) AS n, SUM(bytes) AS bytes FROM poll_records").get() as { n: number; bytes: number };
    const outcomes = db.prepare("SELECT COUNT(*) FROM auto_repair_outcomes").pluck().get() as number;
    const rows = db.prepare("SELECT COUNT(*) FROM repair_history").pluck().get() as number;
    return { historyRows: rows, outcomes, pollRecords: polls.n, pollRecordMegabytes: polls.bytes / 1024 / 1024, seconds: (performance.now() - began) / 1000 };
  } finally {
    db.close();
  }
}
