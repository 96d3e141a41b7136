import type { KintsugiConfig } from "../config/kintsugi-config.js";
import type { RepairEntryStore, RepairChange } from "../store/repair-entry-store.js";
import type { SettingsStore } from "../store/settings-store.js";
import type { AutoRepairOutcomeStore } from "../store/auto-repair-outcome-store.js";
import type { AutoRepairPoller } from "../runner/auto-repair-poller.js";
import type { SabakanGatewayClient } from "../adapters/sabakan-gateway-client.js";
import type { MachineByAddressLoader } from "../gateway/machine-loader.js";
import type { MachineStateChange } from "../gateway/sabakan-data.js";
import type { PubSub } from "./pubsub.js";
import type { HealthCheckRunner } from "../runner/health-check-runner.js";
import type { Topics } from "./topics.js";
import type { ClusterGenerationStore } from "../store/cluster-generation-store.js";
import type { ClusterGenerator } from "../runner/cluster-generator.js";
import type { Actor } from "../auth/roles.js";

/**
 * What every resolver gets: the stores, the config, the clock, where committed changes are announced, and the
 * gateway's sabakan. Made afresh for each request (the machine loader batches within one request only).
 */
export interface GraphQLContext {
  /** Who made the request (a token's name, or "anonymous") and their role; the edge admitted them, resolvers trust it. */
  readonly actor: Actor;
  readonly entries: RepairEntryStore;
  readonly settings: SettingsStore;
  readonly outcomes: AutoRepairOutcomeStore;
  readonly autoRepair: AutoRepairPoller;
  readonly config: KintsugiConfig;
  /** Milliseconds since the epoch; the only clock resolvers read. */
  readonly now: () => number;
  /** Called after a transaction commits, with what changed (wakes the runner, feeds subscriptions). */
  readonly committed: (changes: readonly RepairChange[]) => void;
  /** null = sabakan is not configured. */
  readonly sabakan: SabakanGatewayClient | null;
  /** This request's batched machine lookups; null without sabakan. */
  readonly machines: MachineByAddressLoader | null;
  readonly pubsub: PubSub<Topics>;
  readonly healthChecks: HealthCheckRunner;
  readonly generations: ClusterGenerationStore;
  readonly clusterGenerator: ClusterGenerator;
  /** Why the runner's last pass left an entry where it is, or null (see `RepairRunner.waitReason`). */
  readonly waitReason: (index: number) => string | null;
  /** Called after sabakan accepted a state change made through kintsugi. */
  readonly machineStateChanged: (change: MachineStateChange) => void;
}
