import type { AutoRepairOutcome } from "../domain/intake/auto-repair-outcome.js";
import type { DomainPacing } from "../domain/pacing/repair-pacing-report.js";
import type { ClusterGeneration } from "../domain/cluster/generation-record.js";
import { KintsugiMetrics } from "../graphql/metrics.js";
import { PubSub } from "../graphql/pubsub.js";
import { TOPIC_NAMES, type Topics } from "../graphql/topics.js";
import type { KintsugiStore, RepairChange, StoreCommit } from "../store/store-port.js";

/** Where committed changes and new records go: subscriptions, metrics, and the embedding program's hooks. */
export interface Events {
  readonly pubsub: PubSub<Topics>;
  readonly metrics: KintsugiMetrics;
}

export interface EventHooks {
  /** Events a subscriber may fall behind before it is closed. */
  readonly subscriptionBufferSize?: number;
  readonly onCommitted?: (changes: readonly RepairChange[]) => void;
  readonly onOutcome?: (outcome: AutoRepairOutcome) => void;
  readonly onClusterGeneration?: (record: ClusterGeneration) => void;
}

/** What the topics and the metrics are fed from; the functions are read at scrape time. */
export interface EventSources {
  readonly store: KintsugiStore;
  readonly now: () => number;
  readonly unusedMachines: () => ReadonlyMap<string, number> | null;
  readonly isLeader: () => boolean;
  /** The leader's last generation round that decided (see KintsugiMetrics' integrationVerdict); null on a follower or before one. */
  readonly integrationVerdict?: () => { readonly successful: boolean; readonly at: number } | null;
  readonly hooks: EventHooks;
  /** Absent: pacing is never reported. */
  readonly repairPacing?: () => readonly DomainPacing[] | null;
}

/**
 * The pub/sub topics and the metrics over the store; `unusedMachines` is read only at scrape time. Every commit the
 * store announces (whoever made it) feeds them, so nothing is published that did not commit, nor twice.
 */
export function buildEvents({ store, now, unusedMachines, isLeader, integrationVerdict = () => null, hooks, repairPacing = () => null }: EventSources): Events {
  const { entries, settings, generations } = store;
  const pubsub = new PubSub<Topics>(hooks.subscriptionBufferSize);
  const metrics = new KintsugiMetrics({
    entries: () => entries.list(),
    repairQueueEnabled: () => settings.repairQueueEnabled(),
    autoRepairEnabled: () => settings.autoRepairEnabled(),
    now,
    clusterGeneration: () => ({ current: generations.current(), latest: generations.latest() }),
    unusedMachines,
    isLeader,
    clusterGenerationEnabled: () => settings.clusterGenerationEnabled(),
    integrationVerdict,
    subscriptions: () => new Map(TOPIC_NAMES.map((topic) => [topic, pubsub.count(topic)])),
    repairPacing,
    repairWaits: () => settings.repairWaits(),
  });
  // The gauges of held and skipped machines start from the newest successful poll kept (most often the newest), read
  // in the background; an outcome committed meanwhile is newer and wins.
  let committed = false;
  void newestSuccessfulOutcome(store).then((latest) => {
    if (latest && !committed) metrics.outcomeCommitted(latest);
  });
  store.onCommit((commit: StoreCommit) => {
    if (commit.outcome !== null) committed = true;
    if (commit.entries.length > 0) {
      metrics.committed(commit.entries);
      for (const change of commit.entries) pubsub.publish("repairEntryEvents", change);
      hooks.onCommitted?.(commit.entries);
    }
    if (commit.outcome !== null) {
      metrics.outcomeCommitted(commit.outcome);
      pubsub.publish("autoRepairOutcomes", commit.outcome);
      hooks.onOutcome?.(commit.outcome);
    }
    for (const change of commit.holds ?? []) pubsub.publish("machineHoldEvents", change);
    // The waits the leader published, read from this replica's store: the same on every replica.
    if (commit.settings.includes("repair-waits")) pubsub.publish("repairWaits", settings.repairWaits());
    // A failure that repeats the newest record only counts on it: subscribers heard of that record when it was new.
    if (commit.generation !== null && commit.generation.repeats === 1) {
      pubsub.publish("clusterGenerated", commit.generation);
      hooks.onClusterGeneration?.(commit.generation);
    }
  });
  return { pubsub, metrics };
}

/** The newest kept outcome of a poll that succeeded, read a few at a time (most often it is the newest); null when none or unreadable. */
async function newestSuccessfulOutcome(store: KintsugiStore): Promise<AutoRepairOutcome | null> {
  try {
    for (const count of [1, 10, 100, null]) {
      const kept = await store.outcomes.last(count);
      const latest = kept.findLast((o) => o.error === null);
      if (latest || kept.length < (count ?? Infinity)) return latest ?? null;
    }
  } catch {
    // The store is away: the gauges start from the next poll.
  }
  return null;
}
