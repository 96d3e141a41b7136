import { randomBytes } from "node:crypto";
import type { PollRecord } from "../../src/domain/replay/poll-record.js";
import type { RemediationRecord } from "../../src/domain/replay/remediation-record.js";
import { packRecords, unpackRecords } from "../../src/graphql/replay/packed-records.js";
import { decodePollRecord, decodeRemediationRecord } from "../../src/store/poll-record-schema.js";
import type { PollRecordPort } from "../../src/store/store-port.js";

/**
 * A poll record at `time` of `n` answered machines whose serials are `serialBytes` random bytes in hex, so that
 * deflate cannot squeeze them away (a test of the byte bounds sets how large a record is by them).
 */
export function randomPollRecord(time: number, n = 1, serialBytes = 8): PollRecord {
  return {
    time,
    machines: {
      serial: Array.from({ length: n }, () => randomBytes(serialBytes).toString("hex")),
      ipv4: Array.from({ length: n }, (_, i) => `10.0.${i >> 8}.${i & 255}`),
      rack: Array.from({ length: n }, () => 1),
      types: ["IPMI-2.0"],
      type: Array.from({ length: n }, () => 0),
      state: Array.from({ length: n }, () => 2),
      seconds: Array.from({ length: n }, () => 60),
      standing: Array.from({ length: n }, () => 1),
    },
    queue: [],
    held: [],
    constraints: { maximumRepairQueueEntries: 5, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 },
    enqueued: [],
    shortCircuited: false,
  };
}

/** The record of health check "workers" at `time` finding node n1 unhealthy and enqueuing it. */
export function remediationRecordAt(time: number): RemediationRecord {
  return {
    time,
    check: "workers",
    gate: { open: true, reason: null },
    targets: 3,
    pending: 1,
    unhealthy: { node: ["n1"], address: ["10.0.0.1"], addressProblem: [null], machineType: ["IPMI-2.0"] },
    queue: [],
    held: [],
    maximumRepairQueueEntries: 5,
    enqueued: ["10.0.0.1"],
    shortCircuited: false,
  };
}

/**
 * The readable poll records at or after `since`, oldest first, at most `limit`, and how many could not be read: read
 * as the replay reads them (the store's stored records, decoded as the replay's worker thread decodes them).
 */
export async function readPollRecords(port: PollRecordPort, since = 0, limit = 1000): Promise<{ records: PollRecord[]; unreadable: number }> {
  return unpackRecords(await packRecords(await port.stored("intake", since, limit)), decodePollRecord);
}

/** The readable remediation records, as {@link readPollRecords} reads the poll records. */
export async function readRemediationRecords(port: PollRecordPort, since = 0, limit = 1000): Promise<{ records: RemediationRecord[]; unreadable: number }> {
  return unpackRecords(await packRecords(await port.stored("health-check", since, limit)), decodeRemediationRecord);
}
