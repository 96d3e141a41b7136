// The replay's worker thread: decodes the records it is handed and runs the replay (src/domain/replay/replay-job.ts), so
// that a replay a client sized at a month of records never blocks the API's event loop. It answers once and ends.
import { parentPort, workerData } from "node:worker_threads";
import { runReplayJob } from "../../domain/replay/replay-job.js";
import { decodePollRecord, decodeRemediationRecord } from "../../store/poll-record-schema.js";
import { unpackRecords } from "./packed-records.js";
import type { ReplayWorkerInput, ReplayWorkerOutput } from "./replay-threads.js";

const input = workerData as ReplayWorkerInput;
const polls = unpackRecords(input.polls, decodePollRecord);
const remediations = unpackRecords(input.remediations, decodeRemediationRecord);
const result = runReplayJob({ ...input.job, polls: polls.records, remediations: remediations.records });
const output: ReplayWorkerOutput = { result, unreadable: polls.unreadable + remediations.unreadable };
parentPort?.postMessage(output);
