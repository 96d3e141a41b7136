import type { KintsugiConfig } from "../config/kintsugi-config.js";
import type { RepairEntryStore, RepairChange } from "../store/repair-entry-store.js";
import type { SettingsStore } from "../store/settings-store.js";
import type { AutoRepairOutcomeStore } from "../store/auto-repair-outcome-store.js";
import type { AutoRepairPoller } from "../runner/auto-repair-poller.js";

/** What every resolver gets: the stores, the config, the clock, and where committed changes are announced. */
export interface GraphQLContext {
  readonly entries: RepairEntryStore;
  readonly settings: SettingsStore;
  readonly outcomes: AutoRepairOutcomeStore;
  readonly autoRepair: AutoRepairPoller;
  readonly config: KintsugiConfig;
  /** Milliseconds since the epoch; the only clock resolvers read. */
  readonly now: () => number;
  /** Called after a transaction commits, with what changed (wakes the runner, feeds subscriptions). */
  readonly committed: (changes: readonly RepairChange[]) => void;
}
