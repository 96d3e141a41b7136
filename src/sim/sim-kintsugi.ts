import type { MachineSource } from "../adapters/ports.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import { AutoRepairPoller } from "../runner/auto-repair-poller.js";
import { BmcDirectory } from "../runner/bmc-directory.js";
import { HealthCheckRunner } from "../runner/health-check-runner.js";
import { seededLedger, type PacingLedger } from "../runner/pacing-ledger.js";
import { RackDirectory } from "../runner/rack-directory.js";
import { RepairRunner } from "../runner/repair-runner.js";
import type { KintsugiStore, StoreCommit } from "../store/store-port.js";
import { SILENT_LOG } from "../support/log.js";
import type { SimCommands } from "./sim-commands.js";
import type { SimNodes, SimSabakan } from "./sim-kube.js";

/** How the simulated kintsugi is wired, besides its repair config. */
export interface SimKintsugiWiring {
  readonly store: KintsugiStore;
  readonly commands: SimCommands;
  readonly nodes: SimNodes;
  readonly sabakan: SimSabakan;
  /** null: the config has no sabakan section (the runner reads no sabakan state, no poll runs). */
  readonly withSabakan: boolean;
  readonly healthCheck: HealthCheckConfig;
  /** The control planes the runner protects (the generated configuration's, or the world's). */
  readonly controlPlanes: () => readonly string[];
  readonly now: () => number;
  readonly random: () => number;
  readonly passMs: number;
  /**
   * Wire as serve does (buildWorkers): pacing's ledger and racks, the BMC directory, every sabakan answer recorded.
   * The classic model runs without them, as issue 24's simulator did (its seeds replay the same histories).
   */
  readonly asServe: boolean;
}

/**
 * The leader's workers (the runner, the sabakan poller, the health checks) over the shared store, built as serve
 * builds them; a failover stops them (their jobs and commands with them) and builds new ones from the stored state,
 * with another repair config when an operator changed it.
 */
export class SimKintsugi {
  runner!: RepairRunner;
  poller!: AutoRepairPoller;
  health!: HealthCheckRunner;
  /** The racks kintsugi learnt from sabakan's answers (pacing by rack reads them; so does its invariant). */
  readonly racks = new RackDirectory();
  private ledger: PacingLedger | null = null;
  restarts = 0;

  constructor(
    private readonly w: SimKintsugiWiring,
    public repair: RepairConfig,
  ) {
    this.build();
  }

  /** Every commit, as a leader term feeds its pacing ledger. */
  committed(commit: StoreCommit): void {
    this.ledger?.record(commit);
  }

  private build(): void {
    const { w, repair } = this;
    const bmcs = new BmcDirectory();
    this.ledger = w.asServe ? seededLedger(w.store) : null;
    const machines: MachineSource | null = !w.withSabakan ? null : w.asServe ? bmcs.recording(this.racks.recording(w.sabakan)) : w.sabakan;
    this.runner = new RepairRunner({
      entries: w.store.entries,
      settings: w.store.settings,
      holds: w.store.holds,
      repair,
      commands: w.commands,
      nodes: w.nodes,
      generatedControlPlanes: w.controlPlanes,
      now: w.now,
      random: w.random,
      log: SILENT_LOG,
      intervalMs: w.passMs,
      healthCheckConcurrency: 8,
      ...(machines && { machines }),
      ...(this.ledger && { pacing: { ledger: this.ledger, racks: this.racks }, bmcs }),
    });
    this.poller = new AutoRepairPoller({ store: w.store, machines: machines ?? w.sabakan, nodes: w.nodes, now: w.now, log: SILENT_LOG, repair });
    this.health = new HealthCheckRunner({
      checks: [w.healthCheck],
      repair,
      nodes: w.nodes,
      machines: machines ?? w.sabakan,
      store: w.store,
      now: w.now,
      log: SILENT_LOG,
      intervalMs: w.passMs,
      changed: () => {},
    });
  }

  async stop(): Promise<void> {
    await Promise.all([this.runner.stop(), this.poller.stop(), this.health.stop()]);
  }

  /** The leader fails over: the workers stop and new ones start from the stored state, with `repair` when given. */
  async failover(repair?: RepairConfig): Promise<void> {
    await this.stop();
    if (repair) this.repair = repair;
    this.build();
    this.restarts++;
  }
}
