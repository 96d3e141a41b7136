import { Counter, Gauge, Histogram, Registry } from "./prom-client.js";
import { skipsByKind } from "../domain/intake/auto-repair-deferrals.js";
import { skippedCountsOf } from "../domain/intake/skipped-bound.js";
import type { AutoRepairOutcome } from "../domain/intake/auto-repair-outcome.js";
import { DEFERRED_KINDS, PASSED_KINDS, type SkipKind } from "../domain/intake/skip-kinds.js";
import { isFinished, REPAIR_STATUSES, type RepairEntry } from "../domain/queue/repair-entry.js";
import type { RepairChange } from "../store/store-port.js";
import type { DomainPacing } from "../domain/pacing/repair-pacing-report.js";
import { waitsByIndex, type PublishedWait } from "../domain/queue/published-waits.js";
import { waitCycles } from "../domain/queue/wait-cycles.js";
import type { ClusterGeneration } from "../domain/cluster/generation-record.js";
import { machineRepairStatuses } from "../domain/stats/machine-repair-status.js";
import { registerClusterGauges } from "./cluster-metrics.js";
import { TimeToRepairHistogram } from "./time-to-repair-histogram.js";
import { registerEventLoopDelay } from "./event-loop-delay.js";
import type { IntervalHistogram } from "node:perf_hooks";

export interface MetricsSources {
  readonly entries: () => readonly RepairEntry[];
  readonly repairQueueEnabled: () => boolean;
  readonly autoRepairEnabled: () => boolean;
  readonly now: () => number;
  /** The configuration in force and the newest generation record (null when none). */
  readonly clusterGeneration?: () => { readonly current: ClusterGeneration | null; readonly latest: ClusterGeneration | null };
  /** Healthy machines no node uses, by role, as of the last round (null before one). */
  readonly unusedMachines?: () => ReadonlyMap<string, number> | null;
  /**
   * Whether this replica leads (acts on the world); CKE's `cke_leader`. Absent: it always does (one replica). A
   * follower serves no gauge of the shared store and none of cluster generation, as CKE's followers serve none of
   * their "node" and "sabakan_integration" groups (metrics/collector.go): a dashboard that sums them counts once.
   */
  readonly isLeader?: () => boolean;
  /** Whether cluster generation is enabled; while it is not, its gauges are not served (CKE: isSabakanIntegrationAvailable). */
  readonly clusterGenerationEnabled?: () => boolean;
  /**
   * What the leader's last generation round that decided concluded, and when (CKE's UpdateSabakanIntegration: a
   * round that could not ask sabakan sets nothing); null before one.
   */
  readonly integrationVerdict?: () => { readonly successful: boolean; readonly at: number } | null;
  /** Open subscriptions by topic. */
  readonly subscriptions?: () => ReadonlyMap<string, number>;
  /** Each pacing domain value's allowance, on the leader with `repair.pacing` (null otherwise). */
  readonly repairPacing?: () => readonly DomainPacing[] | null;
  /** The waits the leader published (the same on every replica). */
  readonly repairWaits?: () => readonly PublishedWait[];
}

/**
 * Series of `kintsugi_repair_pacing_allowance` at most. Its values are racks and machine types (of the queue and of
 * the finished entries pacing remembers), which a data center has far fewer of; the cap only keeps a flood of bogus
 * machine types from flooding Prometheus.
 */
export const MAX_PACING_SERIES = 1000;

/**
 * The longest domain value exported as a label. Machine types come from sabakan's bmcType (untrusted, as long as an
 * answer may be); a longer one is left out of the gauge (repairPacing still shows it) rather than bloat every scrape.
 */
export const MAX_PACING_LABEL_LENGTH = 256;

/**
 * Prometheus metrics with CKE's names under a `kintsugi_` prefix. Gauges are read from the store at scrape time,
 * so they always match the queue; histograms and counters are fed by commits and polls. One registry per server.
 */
export class KintsugiMetrics {
  /** What every replica serves: leadership, subscriptions, and what this process observed (histograms, counters). */
  readonly registry = new Registry();
  /** The gauges of the shared store (the queue, its switches, the polls' holds, the configuration in force): the leader only. */
  readonly leaderRegistry = new Registry();
  /** CKE's sabakan integration gauges: the leader only, while cluster generation is enabled. */
  readonly integrationRegistry = new Registry();
  private readonly pollDuration: Histogram<"result">;
  private readonly pollErrors: Counter<string>;
  private readonly ticksSkipped: Counter<"reason">;
  private readonly repairDuration: Histogram<"status">;
  private readonly timeToRepair: TimeToRepairHistogram;
  private readonly eventLoopDelay: IntervalHistogram;
  /** The skips of the latest successful poll by kind (null before one): a failed poll holds nothing back, nor frees anything. */
  private latestSkips: Record<SkipKind, number> | null = null;

  constructor(private readonly sources: MetricsSources) {
    const everyReplica = [this.registry];
    const registers = [this.leaderRegistry];
    new Gauge({
      name: "kintsugi_repair_queue_enabled",
      help: "1 when the repair queue is processed",
      registers,
      collect() {
        this.set(sources.repairQueueEnabled() ? 1 : 0);
      },
    });
    if (sources.isLeader) {
      const isLeader = sources.isLeader;
      new Gauge({
        name: "kintsugi_leader",
        help: "1 when this replica is the leader (it repairs, polls sabakan, runs health checks and generates the cluster), 0 on a follower",
        registers: everyReplica,
        collect() {
          this.set(isLeader() ? 1 : 0);
        },
      });
    }
    new Gauge({
      name: "kintsugi_auto_repair_enabled",
      help: "1 when sabakan-triggered repair polls sabakan",
      registers,
      collect() {
        this.set(sources.autoRepairEnabled() ? 1 : 0);
      },
    });
    new Gauge({
      name: "kintsugi_repair_queue_items",
      help: "Repair entries in the queue by status",
      labelNames: ["status"],
      registers,
      collect() {
        const entries = sources.entries();
        for (const status of REPAIR_STATUSES) this.set({ status }, entries.filter((e) => e.status === status).length);
      },
    });
    new Gauge({
      name: "kintsugi_repair_queue_entries",
      help: "1 for each repair entry in the queue",
      labelNames: ["index", "address", "operation", "status", "step"],
      registers,
      collect() {
        this.reset();
        for (const e of sources.entries())
          this.set({ index: String(e.index), address: e.address, operation: e.operation, status: e.status, step: String(e.step) }, 1);
      },
    });
    new Gauge({
      name: "kintsugi_machine_repair_status",
      help: "For every node of the generated cluster and every entry's address, 1 for each status any entry of it has, 0 for the others (CKE's semantics)",
      labelNames: ["address", "status"],
      registers,
      collect() {
        this.reset();
        const nodes = sources.clusterGeneration?.().current?.cluster?.nodes.map((n) => n.address) ?? [];
        for (const { address, status, value } of machineRepairStatuses(nodes, sources.entries())) this.set({ address, status }, value);
      },
    });
    const { subscriptions, repairPacing, repairWaits } = sources;
    if (repairWaits) {
      new Gauge({
        name: "kintsugi_repair_entries_waiting_for_each_other",
        help: "Unfinished repair entries that wait for each other (a cycle of waits, such as two control planes both not Ready), as the leader last published",
        registers,
        collect() {
          this.set(waitCycles(waitsByIndex(repairWaits())).reduce((n, cycle) => n + cycle.length, 0));
        },
      });
    }
    if (repairPacing) {
      new Gauge({
        name: "kintsugi_repair_pacing_allowance",
        help: "Repairs a failure domain value may have in progress (repair.pacing; the leader only)",
        labelNames: ["domain", "value"],
        registers,
        collect() {
          this.reset();
          const exported = (repairPacing() ?? []).filter((d) => d.value.length <= MAX_PACING_LABEL_LENGTH).slice(0, MAX_PACING_SERIES);
          for (const d of exported) this.set({ domain: d.domain, value: d.value }, d.allowance);
        },
      });
    }
    if (subscriptions) {
      new Gauge({
        name: "kintsugi_subscriptions",
        help: "Open GraphQL subscriptions by topic",
        labelNames: ["topic"],
        registers: everyReplica,
        collect() {
          for (const [topic, n] of subscriptions()) this.set({ topic }, n);
        },
      });
    }
    registerClusterGauges(sources, this.leaderRegistry, this.integrationRegistry);
    const skips = () => this.latestSkips;
    new Gauge({
      name: "kintsugi_auto_repair_held_machines",
      help: `Machines the latest successful sabakan poll deferred (to be repaired once the limit or the wait ends), by reason: ${DEFERRED_KINDS.join(", ")}`,
      labelNames: ["reason"],
      registers,
      collect() {
        for (const reason of DEFERRED_KINDS) this.set({ reason }, skips()?.[reason] ?? 0);
      },
    });
    new Gauge({
      name: "kintsugi_auto_repair_skipped_machines",
      help: `Machines the latest successful sabakan poll skipped (not to be enqueued), by reason: ${PASSED_KINDS.join(", ")}`,
      labelNames: ["reason"],
      registers,
      collect() {
        for (const reason of PASSED_KINDS) this.set({ reason }, skips()?.[reason] ?? 0);
      },
    });
    this.pollDuration = new Histogram({
      name: "kintsugi_auto_repair_poll_duration_seconds",
      help: "Duration of sabakan polls",
      labelNames: ["result"],
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: everyReplica,
    });
    this.pollErrors = new Counter({ name: "kintsugi_auto_repair_poll_errors_total", help: "sabakan polls that failed", registers: everyReplica });
    this.ticksSkipped = new Counter({
      name: "kintsugi_auto_repair_ticks_skipped_total",
      help: "Scheduled sabakan polls not run: auto-repair disabled, or the previous poll still running",
      labelNames: ["reason"],
      registers: everyReplica,
    });
    this.repairDuration = new Histogram({
      name: "kintsugi_repair_duration_seconds",
      help: "Time from an entry's creation to its end",
      labelNames: ["status"],
      buckets: [60, 300, 900, 1800, 3600, 7200, 21600, 86400],
      registers: everyReplica,
    });
    this.timeToRepair = new TimeToRepairHistogram(this.registry);
    this.eventLoopDelay = registerEventLoopDelay(this.registry);
  }

  /** Stops sampling the event loop's delay. */
  close(): void {
    this.eventLoopDelay.disable();
  }

  /** Feeds a recorded poll outcome and how long the poll took. */
  polled(outcome: AutoRepairOutcome, seconds: number): void {
    this.pollDuration.observe({ result: outcome.error === null ? "ok" : "error" }, seconds);
    if (outcome.error !== null) this.pollErrors.inc();
  }

  /**
   * Feeds a committed poll outcome, on every replica (from the store's commits, whichever replica polled): the held
   * and skipped gauges follow the latest successful poll; a failed one changes nothing.
   */
  outcomeCommitted(outcome: AutoRepairOutcome): void {
    // From the counts, not the list: an outcome lists at most 1,000 skipped machines, and counts them all.
    if (outcome.error === null) this.latestSkips = skipsByKind(skippedCountsOf(outcome));
  }

  /** Counts a scheduled poll that did not run, and why (the schedule is alive even while nothing polls). */
  tickSkipped(reason: "disabled" | "busy"): void {
    this.ticksSkipped.inc({ reason });
  }

  /** Feeds committed changes: an entry that finished observes its repair duration. */
  committed(changes: readonly RepairChange[]): void {
    for (const { entry, record } of changes) {
      if (record.kind === "transition" && isFinished(entry)) this.repairDuration.observe({ status: entry.status }, (record.time - entry.createdAt) / 1000);
    }
    this.timeToRepair.committed(changes);
  }

  /** The registries this replica serves now: the leader's gauges only on the leader, generation's only while enabled. */
  served(): Registry[] {
    const leads = this.sources.isLeader?.() ?? true;
    const generating = this.sources.clusterGeneration !== undefined && (this.sources.clusterGenerationEnabled?.() ?? true);
    return [this.registry, ...(leads ? [this.leaderRegistry] : []), ...(leads && generating ? [this.integrationRegistry] : [])];
  }

  async text(): Promise<{ contentType: string; body: string }> {
    const parts = await Promise.all(this.served().map((r) => r.metrics()));
    return { contentType: this.registry.contentType, body: parts.filter((p) => p.trim() !== "").join("\n") };
  }
}
