import type { CommandRunner, MachineSource, NodeOperator } from "../adapters/ports.js";
import type { RepairConfig } from "../domain/queue/repair-config.js";
import type { CommandOwner } from "../domain/queue/command-marker.js";
import type { BmcDirectory } from "./bmc-directory.js";
import type { PacingLedger } from "./pacing-ledger.js";
import type { RackDirectory } from "./rack-directory.js";
import type { MachineHoldPort, RepairEntryPort, SettingsPort } from "../store/store-port.js";
import type { Log } from "../support/log.js";

/** Everything the runner works with; `main.ts` wires the real ones, tests may wire test servers behind them. */
export interface RunnerDeps {
  readonly entries: RepairEntryPort;
  readonly settings: SettingsPort;
  /** The stored machine holds (the runner removes the expired ones); absent = only annotation holds. */
  readonly holds?: MachineHoldPort;
  readonly repair: RepairConfig;
  readonly commands: CommandRunner;
  /** null = no Kubernetes: every machine is out of cluster and no step drains. */
  readonly nodes: NodeOperator | null;
  /** The addresses the cluster configuration in force (kintsugi's generated one) lists as control planes. */
  readonly generatedControlPlanes: () => readonly string[];
  readonly now: () => number;
  /** [0, 1), for the drain back-off jitter. */
  readonly random: () => number;
  readonly log: Log;
  /** The safety tick: a pass runs at least this often. */
  readonly intervalMs: number;
  /**
   * How long an entry's health verdict is reused by passes in between (see HealthVerdicts); absent: `intervalMs`, so
   * an entry is checked at most once per tick however often the runner is woken.
   */
  readonly healthVerdictMs?: number;
  readonly healthCheckConcurrency: number;
  /** What pacing by results reads (`repair.pacing`); absent = no pacing whatever the config says. */
  readonly pacing?: { readonly ledger: PacingLedger; readonly racks: RackDirectory };
  /** sabakan, asked only for proof of repair's `sabakan_healthy`; absent or null: that signal never holds. */
  readonly machines?: MachineSource | null;
  /** The machines' BMCs that commands get in their environment; absent: KINTSUGI_BMC_ADDRESS is always empty. */
  readonly bmcs?: BmcDirectory;
  /**
   * This process (commands it decides and starts are marked with it) and the margin past a command's timeout during
   * which a command another process started counts as running (see entry-command.ts). Absent: no marks, no waits.
   */
  readonly fence?: { readonly owner: CommandOwner; readonly marginSeconds: number };
}
