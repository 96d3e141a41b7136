import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  compactionSampleIntervalMs,
  compactionStepMs,
  planCompaction,
  type CompactionPlanInput,
  type RevisionSample,
} from "../../../src/domain/service/etcd-compaction-plan.js";
import { NOW } from "../../support/fixtures.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const at = (minutesAgo: number, revision: number): RevisionSample => ({ atMs: NOW - minutesAgo * MINUTE, revision });

describe("planCompaction: which revision kintsugi compacts etcd to", () => {
  const cases: Array<{ name: string; input: Omit<CompactionPlanInput, "nowMs">; compactTo: RevisionSample | null; keep: RevisionSample[] }> = [
    { name: "no samples yet", input: { samples: [], retentionMs: HOUR, compacted: null }, compactTo: null, keep: [] },
    {
      name: "every sample younger than the retention: nothing yet, all kept",
      input: { samples: [at(50, 10), at(10, 20)], retentionMs: HOUR, compacted: null },
      compactTo: null,
      keep: [at(50, 10), at(10, 20)],
    },
    {
      name: "the newest sample at or before now - retention, never a younger one; older ones dropped",
      input: { samples: [at(90, 5), at(60, 10), at(59, 12), at(1, 20)], retentionMs: HOUR, compacted: null },
      compactTo: at(60, 10),
      keep: [at(60, 10), at(59, 12), at(1, 20)],
    },
    {
      name: "samples out of order (a clock set back) still give the newest old-enough revision",
      input: { samples: [at(1, 20), at(70, 15), at(80, 9)], retentionMs: HOUR, compacted: null },
      compactTo: at(70, 15),
      keep: [at(1, 20), at(70, 15)],
    },
    {
      name: "a sample from the future is never a target",
      input: { samples: [at(-120, 30)], retentionMs: HOUR, compacted: null },
      compactTo: null,
      keep: [at(-120, 30)],
    },
    {
      name: "the target is what was compacted last: nothing to do",
      input: { samples: [at(70, 10), at(5, 20)], retentionMs: HOUR, compacted: at(70, 10) },
      compactTo: null,
      keep: [at(70, 10), at(5, 20)],
    },
    {
      name: "a newer target within one step of the last compaction waits",
      input: { samples: [at(100, 10), at(61, 11)], retentionMs: HOUR, compacted: at(100, 10) },
      compactTo: null,
      keep: [at(61, 11)],
    },
    {
      name: "a newer target a whole step after the last compaction is compacted to",
      input: { samples: [at(130, 10), at(70, 11)], retentionMs: HOUR, compacted: at(130, 10) },
      compactTo: at(70, 11),
      keep: [at(70, 11)],
    },
    {
      name: "an older target than the last compaction (learnt from a refusal) is not asked for",
      input: { samples: [at(200, 10), at(61, 11)], retentionMs: HOUR, compacted: { atMs: NOW - 300 * MINUTE, revision: 50 } },
      compactTo: null,
      keep: [at(61, 11)],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = planCompaction({ ...c.input, nowMs: NOW });
      assert.deepEqual(plan.compactTo, c.compactTo);
      assert.deepEqual(plan.keep, c.keep);
    });
  }
});

describe("compaction pacing follows etcd's periodic compactor", () => {
  const cases: Array<{ name: string; retentionMs: number; step: number; sample: number }> = [
    { name: "a day's retention: compact hourly, sample every 6 minutes", retentionMs: 24 * HOUR, step: HOUR, sample: 6 * MINUTE },
    { name: "an hour's retention: the same", retentionMs: HOUR, step: HOUR, sample: 6 * MINUTE },
    { name: "ten minutes: compact every 10 minutes, sample every minute", retentionMs: 10 * MINUTE, step: 10 * MINUTE, sample: MINUTE },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(compactionStepMs(c.retentionMs), c.step);
      assert.equal(compactionSampleIntervalMs(c.retentionMs), c.sample);
    });
  }
});
