import type { MachineSource } from "../adapters/ports.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import type { HealthCheckConfig } from "../domain/health/health-check-config.js";
import { AutoRepairPoller } from "../runner/auto-repair-poller.js";
import { BmcDirectory } from "../runner/bmc-directory.js";
import { HealthCheckRunner } from "../runner/health-check-runner.js";
import { seededLedger, type PacingLedger } from "../runner/pacing-ledger.js";
import { RackDirectory } from "../runner/rack-directory.js";
import { RepairRunner } from "../runner/repair-runner.js";
import type { CommandOwner } from "../domain/queue/command-marker.js";
import type { RepairEntry } from "../domain/queue/repair-entry.js";
import type { EntryWrite, KintsugiStore, RepairEntryPort, StoreCommit } from "../store/store-port.js";
import { SILENT_LOG } from "../support/log.js";
import type { SimCommands } from "./sim-commands.js";
import type { SimNodes, SimSabakan } from "./sim-kube.js";

/** How many passes an entry's health verdict is kept for (see healthVerdictMs below). */
const VERDICT_PASSES = 3;

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
   * The classic model runs without them, as the first simulator did (its seeds replay the same histories).
   */
  readonly asServe: boolean;
  /**
   * The fence against inherited commands (runner.inherited_command_margin_seconds), as serve wires it; null: none
   * (the classic model: a failover is a clean restart, as in the first simulator).
   */
  readonly fenceMarginSeconds: number | null;
}

/** How the leader goes: it steps down or is killed (its commands die with it), or it freezes until `resumeAt`. */
export type FailoverMode = { readonly kind: "stopped" } | { readonly kind: "killed" } | { readonly kind: "frozen"; readonly resumeAt: number };

/** Whether a write records the start of a command the entry had only decided (its `due` marker, if any, becomes `started`). */
function recordsStart(current: RepairEntry | null, writes: readonly EntryWrite[] | null): boolean {
  return current !== null && current.command?.operationId == null && (writes ?? []).some((w) => w.entry.command?.operationId != null);
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
  /**
   * Armed: the next write that records a command's start is not made; the replica stops instead, between the pass
   * that decided the command (its `due` marker committed) and its start. Called with the entry.
   */
  stopBeforeStart: ((entryIndex: number, at: number) => void) | null = null;
  /** The entries as the runner sees them: the store's, but a write the armed stop cuts off is never made. */
  private readonly entries: RepairEntryPort;

  constructor(
    private readonly w: SimKintsugiWiring,
    public repair: RepairConfig,
  ) {
    const port = w.store.entries;
    const change: RepairEntryPort["change"] = (index, decide, now, actor) =>
      port.change(
        index,
        (current) => {
          const writes = decide(current);
          const stop = this.stopBeforeStart;
          if (stop === null || !recordsStart(current, writes)) return writes;
          this.stopBeforeStart = null;
          stop(index, now);
          return null;
        },
        now,
        actor,
      );
    this.entries = new Proxy(port, {
      get: (target, key) => (key === "change" ? change : (Reflect.get(target, key, target) as unknown)),
    });
    this.build();
  }

  /** This run of the leader (a failover starts another, on another replica but for a restart). */
  get owner(): CommandOwner {
    return { replica: `r${this.restarts % 3}`, run: `run-${this.restarts}` };
  }

  /** Every commit, as a leader term feeds its pacing ledger. */
  committed(commit: StoreCommit): void {
    this.ledger?.record(commit);
  }

  private build(): void {
    const { w, repair } = this;
    const bmcs = new BmcDirectory();
    this.ledger = w.asServe ? seededLedger(w.store) : null;
    w.commands.owner = this.owner.run;
    const machines: MachineSource | null = !w.withSabakan ? null : w.asServe ? bmcs.recording(this.racks.recording(w.sabakan)) : w.sabakan;
    this.runner = new RepairRunner({
      entries: this.entries,
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
      // Passes come every passMs here; in serve, changes wake the runner between its ticks, and an entry's verdict is
      // kept for a tick. Three passes a verdict makes the simulated runner decide beside verdicts kept from earlier.
      healthVerdictMs: w.passMs * VERDICT_PASSES,
      healthCheckConcurrency: 8,
      ...(machines && { machines }),
      ...(this.ledger && { pacing: { ledger: this.ledger, racks: this.racks }, bmcs }),
      ...(w.fenceMarginSeconds !== null && { fence: { owner: this.owner, marginSeconds: w.fenceMarginSeconds } }),
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

  /**
   * The leader fails over: the workers stop and new ones start from the stored state, with `repair` when given. A
   * frozen leader's commands run on (see SimCommands.freeze); returns how many did.
   */
  async failover(repair?: RepairConfig, mode: FailoverMode = { kind: "stopped" }): Promise<number> {
    const orphans = mode.kind === "frozen" ? this.w.commands.freeze(this.owner.run, mode.resumeAt) : 0;
    this.stopBeforeStart = null;
    await this.stop();
    if (repair) this.repair = repair;
    this.restarts++;
    this.build();
    return orphans;
  }
}
