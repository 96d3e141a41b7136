/**
 * When kintsugi compacts etcd's old revisions (`etcd.compaction-retention`): from the revisions sampled over time,
 * the newest one old enough to compact to, spaced as etcd's own periodic compactor spaces its compactions.
 */

const HOUR_MS = 3_600_000;

/** The store's revision as it was seen at one moment (milliseconds since the epoch). */
export interface RevisionSample {
  readonly atMs: number;
  readonly revision: number;
}

export interface CompactionPlanInput {
  /** The revisions sampled so far, in any order. */
  readonly samples: readonly RevisionSample[];
  readonly nowMs: number;
  readonly retentionMs: number;
  /** The sample last compacted to (or learnt was compacted), or null before the first. */
  readonly compacted: RevisionSample | null;
}

/**
 * How far apart two compactions are: the retention, at most an hour, as etcd's own periodic compactor spaces them
 * (etcd server/etcdserver/api/v3compactor/periodic.go, getCompactInterval), so three replicas compacting on their own
 * ask etcd for a few compactions an hour, not one per sample.
 */
export function compactionStepMs(retentionMs: number): number {
  return Math.min(retentionMs, HOUR_MS);
}

/** A tenth of the step, as etcd's periodic compactor records revisions. */
export function compactionSampleIntervalMs(retentionMs: number): number {
  return compactionStepMs(retentionMs) / 10;
}

/**
 * Whether to compact now (`compactTo`, null: not), and the samples kept for later rounds: the target (to retry it)
 * and newer. The target is the newest revision sampled at or before `nowMs - retentionMs` (so no revision younger than
 * the retention is compacted away), when newer than the last compaction by revision and by at least one step of time.
 */
export function planCompaction(input: CompactionPlanInput): { readonly compactTo: RevisionSample | null; readonly keep: readonly RevisionSample[] } {
  const cutoff = input.nowMs - input.retentionMs;
  let target: RevisionSample | null = null;
  for (const s of input.samples) {
    if (s.atMs <= cutoff && (target === null || s.revision > target.revision)) target = s;
  }
  if (target === null) return { compactTo: null, keep: input.samples };
  const chosen = target;
  const keep = input.samples.filter((s) => s === chosen || s.revision > chosen.revision);
  const last = input.compacted;
  if (last !== null && (chosen.revision <= last.revision || chosen.atMs < last.atMs + compactionStepMs(input.retentionMs))) {
    return { compactTo: null, keep };
  }
  return { compactTo: chosen, keep };
}
