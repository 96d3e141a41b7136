import type { Logger } from "pino";
import type { KintsugiConfig } from "../config/kintsugi-config.js";
import type { Constraints } from "../domain/shared/constraints.js";
import { scheduleTicks } from "../runner/cron-schedule.js";
import { RepairSummaryKeeper, type HistorySummarizer } from "../runner/repair-summary-keeper.js";
import type { KintsugiStore, StoreCommit } from "../store/store-port.js";
import type { Events } from "./events.js";
import { buildWorkers, wakesRunner, type WorkerOptions, type Workers } from "./workers.js";

/** What a term starts besides the workers (tests turn parts off to place entries where they want them). */
export interface TermOptions {
  /** false = the runner and health checks do not run (the API still serves). */
  readonly startRunner: boolean;
  readonly startSchedule: boolean;
  readonly startClusterSchedule: boolean;
}

/** One term as leader: the workers (over the leader-guarded store) and their schedules, running until `end()`. */
export interface LeaderTerm {
  readonly workers: Workers;
  /** Aborts the workers' commands and jobs at once, without waiting (the term was deposed). */
  halt(): void;
  /** Stops the schedules and the workers (their jobs aborted) and waits for them. */
  end(): Promise<void>;
}

/** The constraints cluster generation reads: a change of one of them is worth a generation round. */
const CLUSTER_CONSTRAINTS = [
  "controlPlaneCount",
  "minimumWorkers",
  "maximumWorkers",
  "minimumWorkersRate",
  "waitSecondsToReplaceControlPlane",
] as const satisfies ReadonlyArray<keyof Constraints>;

function clusterConstraintsOf(c: Constraints): string {
  return JSON.stringify(CLUSTER_CONSTRAINTS.map((k) => c[k]));
}

/**
 * Starts a term: builds the workers over `guarded` (every write they make requires that this replica still leads),
 * starts them and their schedules, and makes committed changes reach them whoever made them, on whichever replica:
 * entry and setting changes wake the runner; template, cluster variables, cluster generation switch and cluster
 * constraints request a generation round.
 */
export function beginLeaderTerm(
  config: KintsugiConfig,
  guarded: KintsugiStore,
  events: Events,
  workerOptions: WorkerOptions,
  options: TermOptions,
  summaries?: HistorySummarizer,
): LeaderTerm {
  const workers = buildWorkers(config, guarded, events, workerOptions);
  // Stores each ended repair's history summary with its record, so no replica reads histories for statistics; it
  // summarizes through the replica's query summaries, so a query beside it reads no history twice.
  const summaryKeeper = new RepairSummaryKeeper(
    guarded,
    (err) => workers.logs.stats.warn("storing repair history summaries failed; statistics read those histories instead", { error: (err as Error).message }),
    summaries,
  );
  summaryKeeper.start();
  const { runner, healthChecks, autoRepair, clusterGenerator } = workers;
  let clusterConstraints = clusterConstraintsOf(guarded.settings.constraints());
  const stopListening = guarded.onCommit((commit: StoreCommit) => {
    workers.pacingLedger.record(commit);
    if (wakesRunner(commit)) runner.wake();
    const keys = new Set(commit.settings);
    if (keys.has("cluster-template")) clusterGenerator.request("template");
    else if (keys.has("cluster-variables") || (keys.has("cluster-generation-enabled") && guarded.settings.clusterGenerationEnabled()))
      clusterGenerator.request("settings");
    else if (keys.has("constraints")) {
      const now = clusterConstraintsOf(guarded.settings.constraints());
      if (now !== clusterConstraints) clusterGenerator.request("settings");
      clusterConstraints = now;
    }
  });
  if (options.startRunner) {
    runner.start();
    healthChecks.start();
  }
  const schedules = [
    config.sabakan && options.startSchedule ? scheduleTicks("auto-repair", config.sabakan.schedule, autoRepair, workers.logs.autoRepair) : null,
    config.sabakan && options.startClusterSchedule
      ? scheduleTicks("cluster-generation", config.sabakan.clusterSchedule ?? config.sabakan.schedule, clusterGenerator, workers.logs.cluster)
      : null,
  ].filter((s) => s !== null);
  return {
    workers,
    halt: () => runner.halt(),
    async end() {
      stopListening();
      await Promise.all(schedules.map((s) => s.stop()));
      await Promise.all([clusterGenerator.stop(), autoRepair.stop(), healthChecks.stop(), runner.stop(), summaryKeeper.stop()]);
    },
  };
}

/**
 * The terms of one replica, one after another: a term begins when the replica is elected and ends when it is
 * deposed; the next begins only after the last has ended (its jobs stopped), so two terms never work the same
 * entries. `workers()` is null from the instant of deposition, so the API stops handing out the old term's workers
 * at once.
 */
export class LeaderTerms {
  private term: LeaderTerm | null = null;
  private transitions: Promise<void> = Promise.resolve();
  private closed = false;
  /** Whether this replica leads as of the last event: a term queued to begin does not when it was deposed meanwhile. */
  private leading = false;
  private beginFailure: unknown = null;

  constructor(
    private readonly begin: () => LeaderTerm,
    private readonly logger: Logger,
  ) {}

  /** The current term's workers, or null when this replica does not lead. */
  workers(): Workers | null {
    return this.term?.workers ?? null;
  }

  elected(): void {
    this.leading = true;
    this.transitions = this.transitions.then(() => {
      if (this.closed || !this.leading || this.term !== null) return;
      try {
        this.term = this.begin();
        this.beginFailure = null;
        this.logger.info("this replica leads: it repairs, polls sabakan, runs health checks and generates the cluster");
      } catch (err) {
        this.beginFailure = err;
        this.logger.error({ err }, "cannot begin a term as leader; this replica does not act until it is elected again");
      }
    });
  }

  deposed(reason: string): void {
    this.leading = false;
    const ending = this.term;
    this.term = null;
    if (ending === null) return;
    // Now, not after the transitions before this one: a deposed leader's commands must not run on a moment longer.
    ending.halt();
    if (this.closed) this.logger.info("the workers stop");
    else this.logger.warn({ reason }, "this replica no longer leads: its workers stop");
    this.transitions = this.transitions.then(() => ending.end()).catch((err: unknown) => this.logger.error({ err }, "a leader term did not end cleanly"));
  }

  /** Resolves once every election and deposition heard so far has taken effect; rejects when the last term could not begin. */
  async settled(): Promise<void> {
    await this.transitions;
    if (this.beginFailure !== null) throw this.beginFailure;
  }

  /** Ends the current term (if any) and begins no more. */
  async close(): Promise<void> {
    this.closed = true;
    this.deposed("this replica is stopping");
    await this.transitions;
  }
}
