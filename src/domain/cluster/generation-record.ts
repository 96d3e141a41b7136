import type { GeneratedCluster } from "./types.js";
import { DEFAULT_WORKER_SELECTION, type WorkerSelection } from "./worker-selection.js";

/** What started a generation round. */
export const GENERATION_TRIGGERS = ["schedule", "template", "settings", "event", "operator", "adopt"] as const;
export type GenerationTrigger = (typeof GENERATION_TRIGGERS)[number];

/** How many generation records are kept (the configuration in force is always kept as well). */
export const KEPT_GENERATIONS = 100;

/**
 * One recorded generation round: a new configuration (`cluster` set, `generation` its number), a failure (`error`
 * set, `generation` the number of the configuration that stayed in force, 0 for none), or the first round after a
 * failure that succeeded without changing anything (a recovery: neither set). A failure that repeats the previous
 * record's error is folded into it: `repeats` counts the rounds, `lastTime` the newest.
 */
export interface ClusterGeneration {
  readonly sequence: number;
  readonly outcome: RecordedOutcome;
  /** Epoch milliseconds of the first round this record stands for. */
  readonly time: number;
  readonly lastTime: number;
  readonly repeats: number;
  readonly trigger: GenerationTrigger;
  /** The policy (`sabakan.worker_selection`) the round ran under; records older than the policy read as weighted. */
  readonly policy: WorkerSelection;
  readonly generation: number;
  readonly cluster: GeneratedCluster | null;
  readonly changes: readonly string[];
  readonly error: string | null;
  /**
   * When the template the configuration was made from (or adopted with) was set; absent for failures, recoveries and
   * records older than this field. A template set at another time is a new template: CKE regenerates from it.
   */
  readonly templateSetAt?: number;
}

/** The template as an operator set it: the text kept verbatim (comments and all) and when. */
export interface StoredClusterTemplate {
  readonly text: string;
  readonly setAt: number;
}

/** How a recorded round ended. */
export type RecordedOutcome = "generated" | "failed" | "recovered";

/** Tells whether a round that changed nothing is worth a record: it is when the newest record is a failure. */
export function recordsRecovery(latest: ClusterGeneration | null): boolean {
  return latest !== null && latest.outcome === "failed";
}

/**
 * Tells whether a failure only repeats the newest record (a failure with the same error under the same policy), so
 * that a template that stays broken makes one record with a count, not one per scheduled round.
 */
export function repeatsLatest(latest: ClusterGeneration | null, error: string, policy: WorkerSelection = DEFAULT_WORKER_SELECTION): boolean {
  return latest !== null && latest.outcome === "failed" && latest.error === error && latest.policy === policy;
}

/**
 * How one round ended: not run (and why), nothing to change (with the recovery record when it followed a
 * failure), or a record of a new configuration or a failure (`repeated` when it only counted on the last one).
 */
export type GenerationRound =
  | { readonly kind: "skipped"; readonly reason: string }
  | { readonly kind: "unchanged"; readonly current: ClusterGeneration | null; readonly recovery: ClusterGeneration | null }
  | { readonly kind: "recorded"; readonly record: ClusterGeneration; readonly repeated: boolean };
