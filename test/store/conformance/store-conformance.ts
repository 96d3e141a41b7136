import { afterEach, describe } from "node:test";
import { commitCases } from "./commit-cases.js";
import { holdCases } from "./hold-cases.js";
import { finishedCases } from "./finished-cases.js";
import { evidenceCases } from "./evidence-cases.js";
import { commandMarkerCases } from "./command-marker-cases.js";
import { queueCases } from "./queue-cases.js";
import { recordCases } from "./record-cases.js";
import { pollRecordCases } from "./poll-record-cases.js";
import { timelineCases } from "./timeline-cases.js";
import { summaryCases } from "./summary-cases.js";
import { skippedCountCases } from "./skipped-count-cases.js";
import { sizeCases } from "./size-cases.js";
import { generationCases } from "./generation-cases.js";
import { retentionCases } from "./retention-cases.js";
import { listenerCases } from "./listener-cases.js";
import { readRangeCases } from "./read-range-cases.js";
import { refusalCases } from "./refusal-cases.js";
import { previousCases } from "./previous-cases.js";
import type { StoreHarness } from "./store-harness.js";

export type { LeaderGuard, OpenOptions, StoreHarness } from "./store-harness.js";

/**
 * The store conformance suite: what a store does, whichever backend keeps it. Registers every case for one backend;
 * the cases use the store port only. Cases that need a second live instance, a concurrent writer or a leader guard
 * skip themselves on a backend whose harness has none (SQLite: its file lock makes its process the only writer).
 */
export function storeConformance(harness: StoreHarness): void {
  describe(`the store port on ${harness.name}`, { skip: harness.skip }, () => {
    afterEach(() => harness.cleanup());
    queueCases(harness);
    recordCases(harness);
    commitCases(harness);
    holdCases(harness);
    finishedCases(harness);
    evidenceCases(harness);
    commandMarkerCases(harness);
    pollRecordCases(harness);
    timelineCases(harness);
    summaryCases(harness);
    skippedCountCases(harness);
    sizeCases(harness);
    generationCases(harness);
    retentionCases(harness);
    listenerCases(harness);
    readRangeCases(harness);
    refusalCases(harness);
    previousCases(harness);
  });
}
