import type { PollRecord } from "../../domain/poll-record.js";
import type { RemediationRecord } from "../../domain/remediation-record.js";
import { DEFAULT_POLL_RECORDS, type PollRecordsConfig } from "../../config/poll-records-schema.js";
import { decodePollRecord, decodeRemediationRecord, encodePollRecord } from "../poll-record-schema.js";
import type { PollRecordPort, PollRecordRead, StoredRecords } from "../store-port.js";
import type { Db } from "./database.js";

/** Records read per statement by `stored` (a few hundred kB of a busy month's polls, some ms). */
export const STORED_BATCH = 250;

/** The sabakan polls' records in SQLite, written inside the poll's own transaction, kept by age and total bytes. */
export class SqlitePollRecordStore implements PollRecordPort {
  private readonly insert;
  private readonly pruneOlder;
  private readonly total;
  private readonly oldest;
  private readonly pruneUpTo;
  private readonly selectSince;
  private readonly firstStoredSeq;
  private readonly selectStoredFrom;
  private readonly countAll;

  constructor(
    db: Db,
    private readonly keep: PollRecordsConfig = DEFAULT_POLL_RECORDS,
  ) {
    this.insert = db.prepare("INSERT INTO poll_records (kind, time, bytes, body) VALUES (?, ?, ?, ?)");
    this.pruneOlder = db.prepare("DELETE FROM poll_records WHERE time < ?");
    this.total = db.prepare("SELECT COALESCE(SUM(bytes), 0) FROM poll_records").pluck();
    this.oldest = db.prepare("SELECT seq, bytes FROM poll_records ORDER BY seq");
    this.pruneUpTo = db.prepare("DELETE FROM poll_records WHERE seq <= ?");
    this.selectSince = db.prepare("SELECT body FROM poll_records WHERE kind = ? AND time >= ? ORDER BY seq LIMIT ?").pluck();
    this.firstStoredSeq = db.prepare("SELECT MIN(seq) FROM poll_records WHERE kind = ? AND time >= ?").pluck();
    // By rowid, not the (kind, time) index: rows come in seq order without sorting their bodies.
    this.selectStoredFrom = db
      .prepare("SELECT seq, time, body FROM poll_records NOT INDEXED WHERE seq >= ? AND kind = ? AND time >= ? ORDER BY seq LIMIT ?")
      .raw();
    this.countAll = db.prepare("SELECT COUNT(*) AS records, COALESCE(SUM(bytes), 0) AS bytes FROM poll_records");
  }

  /** Inside a write (the poll's or remediation's enqueue): appends the record, then drops what is too old or past the byte bound. */
  append(kind: "intake", record: PollRecord): void;
  append(kind: "health-check", record: RemediationRecord): void;
  append(kind: "intake" | "health-check", record: PollRecord | RemediationRecord): void {
    const body = encodePollRecord(record);
    this.insert.run(kind, record.time, body.length, body);
    this.pruneOlder.run(record.time - this.keep.keepSeconds * 1000);
    let excess = (this.total.get() as number) - this.keep.maxBytes;
    if (excess <= 0) return;
    let last = 0;
    for (const row of this.oldest.iterate() as Iterable<{ seq: number; bytes: number }>) {
      if (excess <= 0) break;
      excess -= row.bytes;
      last = row.seq;
    }
    this.pruneUpTo.run(last);
  }

  async since(since: number, limit: number): Promise<PollRecordRead> {
    const records: PollRecord[] = [];
    let unreadable = 0;
    for (const body of this.selectSince.all("intake", since, limit) as Buffer[]) {
      const decoded = decodePollRecord(body);
      if (decoded.ok) records.push(decoded.record);
      else unreadable++;
    }
    return { records, unreadable };
  }

  async remediations(since: number, limit: number): Promise<{ readonly records: readonly RemediationRecord[]; readonly unreadable: number }> {
    const records: RemediationRecord[] = [];
    let unreadable = 0;
    for (const body of this.selectSince.all("health-check", since, limit) as Buffer[]) {
      const decoded = decodeRemediationRecord(body);
      if (decoded.ok) records.push(decoded.record);
      else unreadable++;
    }
    return { records, unreadable };
  }

  /**
   * Reads the bodies STORED_BATCH records at a time, yielding to the event loop between batches: a month of polls
   * is tens of MB, and reading it in one statement (its bodies sorted by seq in a temporary B-tree) held the event
   * loop for seconds, /health and every client with it. A record pruned between batches is left out.
   */
  async stored(area: "intake" | "health-check", since: number, limit: number): Promise<StoredRecords> {
    const bodies: Buffer[] = [];
    const times: number[] = [];
    let from = this.firstStoredSeq.get(area, since) as number | null;
    while (from !== null && bodies.length < limit) {
      if (bodies.length > 0) await new Promise((resolve) => setImmediate(resolve));
      const batch = Math.min(STORED_BATCH, limit - bodies.length);
      const rows = this.selectStoredFrom.all(from, area, since, batch) as Array<[number, number, Buffer]>;
      for (const [seq, time, body] of rows) {
        bodies.push(body);
        times.push(time);
        from = seq + 1;
      }
      if (rows.length < batch) break;
    }
    return { bodies, times, unreadable: 0 };
  }

  size(): { readonly records: number; readonly bytes: number } {
    return this.countAll.get() as { records: number; bytes: number };
  }
}
