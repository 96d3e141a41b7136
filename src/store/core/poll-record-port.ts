import { DEFAULT_POLL_RECORDS, type PollRecordsConfig } from "../../config/poll-records-schema.js";
import type { PollRecord } from "../../domain/replay/poll-record.js";
import type { RemediationRecord } from "../../domain/replay/remediation-record.js";
import { decodeReplay, encodePollRecord, type ReplayRecord } from "../poll-record-schema.js";
import type { PollRecordPort, StoredRecords } from "../store-port.js";
import type { StoreKeys, RecordArea, RecordKey } from "./store-keys.js";
import { nextSequence } from "./outcome-port.js";
import { recordValue } from "./value-schemas.js";
import { decodeValue, encodeValue, readOrLog, UndecodableValueError } from "./store-values.js";
import { stampedWrite, type WritePlan } from "./store-writer.js";
import { CorePort, type CoreParts } from "./core-port.js";

/**
 * The most bytes one record's stored value may take, on both drivers so a store copies to etcd: etcd refuses a
 * request over 1.5 MiB by default and the record shares its transaction with the poll's entries and outcome (a
 * 10,000-machine storm's record is about 80 KiB). A larger one is not written, and the poll's write goes on without it.
 */
export const MAX_ETCD_RECORD_BYTES = 512 * 1024;

/** How many bytes of values one read asks etcd for at most (a gRPC answer is limited to 4 MiB by default). */
const PAGE_BYTES = 2 * 1024 * 1024;

/** The key and value that keep one record (its time and the value's bytes ride in the key). */
export function recordPut(
  keys: StoreKeys,
  area: RecordArea,
  sequence: number,
  record: PollRecord | RemediationRecord,
): { readonly key: string; readonly value: string; readonly bytes: number } {
  const value = encodeValue({ body: encodePollRecord(record).toString("base64") });
  const bytes = Buffer.byteLength(value);
  return { key: keys.record({ area, sequence, time: record.time, bytes }), value, bytes };
}

/** The record stored at `key`, or why it cannot be read (including: not what its key says of its time and bytes). */
export function decodeRecord(key: string, expected: RecordKey, raw: Buffer): ReturnType<typeof decodeReplay> {
  let body: Buffer;
  try {
    body = Buffer.from(decodeValue(recordValue, key, raw).body, "base64");
  } catch (err) {
    if (!(err instanceof UndecodableValueError)) throw err;
    return { ok: false, message: err.message };
  }
  const decoded = decodeReplay(expected.area, body);
  if (!decoded.ok) return decoded;
  if (raw.length !== expected.bytes || decoded.replay.record.time !== expected.time) {
    return {
      ok: false,
      message: `its key says ${expected.bytes} bytes at ${expected.time}, its value is ${raw.length} bytes at ${decoded.replay.record.time}`,
    };
  }
  return decoded;
}

/**
 * The replay records: which exist is known from the mirror (by key), their values are read on demand in pages. A
 * value that cannot be read is counted as unreadable and logged, never guessed at.
 */
export class CorePollRecordPort extends CorePort implements PollRecordPort {
  constructor(
    parts: CoreParts,
    readonly keep: PollRecordsConfig = DEFAULT_POLL_RECORDS,
  ) {
    super(parts);
  }

  /**
   * The parts of a write that keep replay records: sequences from the records head (compared and advanced), and the
   * oldest records dropped while older than `keep.keepSeconds` or past `keep.maxBytes`, by one delete range per kind
   * (no value is read to keep the bound, and the write grows by a few operations whatever it drops). A record past
   * {@link MAX_ETCD_RECORD_BYTES}, or every record while the head cannot be read, is left out (logged) so that the
   * poll's write still commits.
   */
  keepWrite(records: readonly ReplayRecord[], writeId: string): WritePlan<null> | null {
    let sequence: number;
    try {
      sequence = nextSequence(this.mirror.recordsHead, this.keys.recordsHead, this.mirror.records.newest());
    } catch (err) {
      // A head another process broke must not stop the polls: they commit without their records until it is repaired.
      this.log.error("the replay records' head cannot be read; this write keeps no replay record", {
        key: this.keys.recordsHead,
        error: (err as Error).message,
      });
      return null;
    }
    const puts: Array<{ key: string; value: string }> = [];
    let adding = 0;
    let newest = 0;
    for (const { area, record } of records) {
      const put = recordPut(this.keys, area, sequence, record);
      if (put.bytes > MAX_ETCD_RECORD_BYTES) {
        this.log.error("a replay record is too large to keep (the limit is etcd's, kept on both drivers); the replay will miss this poll", {
          kind: area,
          time: record.time,
          bytes: put.bytes,
          limit: MAX_ETCD_RECORD_BYTES,
        });
        continue;
      }
      puts.push({ key: put.key, value: put.value });
      sequence++;
      adding += put.bytes;
      newest = Math.max(newest, record.time);
    }
    if (puts.length === 0) return null;
    const pruned = this.mirror.records.prune(adding, newest - this.keep.keepSeconds * 1000, this.keep.maxBytes);
    const deletes = (Object.entries(pruned) as Array<[RecordArea, number]>).map(([area, below]) => this.keys.recordsBelow(area, below + 1));
    return stampedWrite(this.keys.recordsHead, this.mirror.recordsHead, writeId, { next: sequence }, { puts, deletes }, null);
  }

  size(): { readonly records: number; readonly bytes: number } {
    return this.mirror.records.size();
  }

  /** A value that cannot be taken apart (UndecodableValueError) is counted as unreadable and logged. */
  async stored(area: RecordArea, since: number, limit: number): Promise<StoredRecords> {
    const records: Array<{ readonly body: Buffer; readonly time: number }> = [];
    let unreadable = 0;
    const wanted = this.mirror.records.since(area, since, limit).map((record) => ({ key: this.keys.record(record), record }));
    for (const page of pagesOf(wanted)) {
      const byKey = new Map(page.map((k) => [k.key, k.record]));
      const range = { start: page[0]!.key, end: `${page.at(-1)!.key}\0` };
      const response = await this.driver.range(`reading the ${area} records from ${page[0]!.key}`, range);
      for (const { key, value } of response.kvs) {
        const expected = byKey.get(key);
        // A key written after the mirror listed this page is read next time, not now.
        if (expected === undefined) continue;
        const read = readOrLog(this.log, "a stored replay record cannot be read; the replay counts it as unreadable", key, () => {
          const body = Buffer.from(decodeValue(recordValue, key, value).body, "base64");
          if (value.length !== expected.bytes) throw new UndecodableValueError(`its key says ${expected.bytes} bytes, its value is ${value.length} bytes`);
          return { body, time: expected.time };
        });
        if (read === null) unreadable++;
        else records.push(read);
      }
    }
    return { bodies: records.map((r) => r.body), times: records.map((r) => r.time), unreadable };
  }
}

/** Consecutive keys in pages of at most {@link PAGE_BYTES} of values. */
function* pagesOf<K extends { readonly record: RecordKey }>(keys: readonly K[]): Generator<K[]> {
  let page: K[] = [];
  let bytes = 0;
  for (const k of keys) {
    if (page.length > 0 && bytes + k.record.bytes > PAGE_BYTES) {
      yield page;
      page = [];
      bytes = 0;
    }
    page.push(k);
    bytes += k.record.bytes;
  }
  if (page.length > 0) yield page;
}
