import type { AutoRepairOutcome } from "../domain/auto-repair-outcome.js";
import type { ClusterGeneration } from "../domain/cluster/generation-record.js";
import { KintsugiMetrics } from "../graphql/metrics.js";
import { PubSub } from "../graphql/pubsub.js";
import { TOPIC_NAMES, type Topics } from "../graphql/topics.js";
import type { RepairChange } from "../store/repair-entry-store.js";
import type { Stores } from "./stores.js";

/** Where committed changes and new records go: subscriptions, metrics, and the embedding program's hooks. */
export interface Events {
  readonly pubsub: PubSub<Topics>;
  readonly metrics: KintsugiMetrics;
  /** Announces committed repair entry changes (the caller also wakes the runner where that is due). */
  committed(changes: readonly RepairChange[]): void;
}

export interface EventHooks {
  /** Events a subscriber may fall behind before it is closed. */
  readonly subscriptionBufferSize?: number;
  readonly onCommitted?: (changes: readonly RepairChange[]) => void;
  readonly onOutcome?: (outcome: AutoRepairOutcome) => void;
  readonly onClusterGeneration?: (record: ClusterGeneration) => void;
}

/** The pub/sub topics and the metrics over the stores; `unusedMachines` is read only at scrape time. */
export function buildEvents(stores: Stores, now: () => number, unusedMachines: () => ReadonlyMap<string, number> | null, hooks: EventHooks): Events {
  const { entries, settings, generations } = stores;
  const pubsub = new PubSub<Topics>(hooks.subscriptionBufferSize);
  const metrics = new KintsugiMetrics({
    entries: () => entries.list(),
    repairQueueEnabled: () => settings.repairQueueEnabled(),
    autoRepairEnabled: () => settings.autoRepairEnabled(),
    now,
    clusterGeneration: () => ({ current: generations.current(), latest: generations.latest() }),
    unusedMachines,
    subscriptions: () => new Map(TOPIC_NAMES.map((topic) => [topic, pubsub.count(topic)])),
  });
  return {
    pubsub,
    metrics,
    committed(changes) {
      metrics.committed(changes);
      for (const change of changes) pubsub.publish("repairEntryEvents", change);
      hooks.onCommitted?.(changes);
    },
  };
}
