import type { PollRecordsConfig } from "../../../src/config/poll-records-schema.js";
import type { AutoRepairOutcome } from "../../../src/domain/intake/auto-repair-outcome.js";
import type { GeneratedCluster } from "../../../src/domain/cluster/types.js";
import type { Constraints } from "../../../src/domain/shared/constraints.js";
import { createRepairEntry, type UnindexedRepairEntry } from "../../../src/domain/queue/repair-entry.js";
import type { KintsugiStore, StoreCommit, WriteGuard } from "../../../src/store/store-port.js";
import { NOW } from "../../support/fixtures.js";

/** What the conformance suite needs of one backend. */
export interface StoreHarness {
  readonly name: string;
  /** The suite's `skip`: false, or why this backend cannot run here. */
  readonly skip: string | false;
  /** A store over fresh, empty data. */
  open(options?: OpenOptions): Promise<KintsugiStore>;
  /** A new instance over the data of the last `open`, the previous instance closed first (a restart). */
  reopen(options?: OpenOptions): Promise<KintsugiStore>;
  /** Another live instance over the same data (a follower replica); etcd only, SQLite's lock forbids it. */
  second?(): Promise<KintsugiStore>;
  /** Another live instance over the same data whose every transaction meets a competing write first; etcd only. */
  contended?(): Promise<KintsugiStore>;
  /** A leader's guard over the same data, holding until `depose()` hands leadership to someone else; etcd only. */
  guardable?(): Promise<LeaderGuard>;
  /** Closes the current instance and replaces the value of every stored replay record with one that is not a record. */
  corruptPollRecords(): Promise<void>;
  /** Closes every instance opened since the last cleanup. */
  cleanup(): Promise<void>;
}

export interface OpenOptions {
  /** The config file's constraints. */
  readonly initialConstraints?: Partial<Constraints>;
  /** How many finished-repair records the store keeps (its default when absent). */
  readonly keepFinishedRepairs?: number;
  /** How long and how much of the replay records the store keeps (its default when absent). */
  readonly pollRecords?: PollRecordsConfig;
}

export interface LeaderGuard {
  readonly guard: WriteGuard;
  /** Ends this leadership: the election key is replaced (another replica won). */
  depose(): Promise<void>;
}

export const ACTOR = "conformance";

/** A new entry for `address`, as the API creates one. */
export function newEntry(address: string, overrides: Partial<UnindexedRepairEntry> = {}): UnindexedRepairEntry {
  return { ...createRepairEntry({ address, machineType: "qemu", operation: "unreachable", serial: `s-${address}`, source: "operator" }, NOW), ...overrides };
}

/** A poll outcome that uses every field; `i` varies it. */
export function outcome(i: number): Omit<AutoRepairOutcome, "sequence"> {
  return {
    time: NOW + i,
    trigger: "schedule",
    machinesSeen: i,
    enqueued: [],
    skipped: [{ serial: `s${i}`, address: null, state: "UNHEALTHY", reason: "no address", kind: "no_address" as const, rack: i % 3 }],
    shortCircuit: i % 2 === 0 ? { existingEntries: i, candidates: 1, limit: 0 } : null,
    error: i % 3 === 0 ? `failure ${i}` : null,
  };
}

/** A small generated cluster with one control plane; `n` varies its worker. */
export function cluster(n: number): GeneratedCluster {
  return {
    name: "tokyo",
    service_subnet: "10.68.0.0/16",
    control_plane_tolerations: ["dedicated"],
    extra: { options: { kubelet: { cgroup_driver: "systemd" } } },
    nodes: [
      { address: "10.0.0.1", user: "cybozu", control_plane: true, labels: { "cke.cybozu.com/rack": "0" }, annotations: {}, taints: [] },
      {
        address: `10.0.1.${n + 1}`,
        user: "cybozu",
        control_plane: false,
        labels: {},
        annotations: {},
        taints: [{ key: "k", value: "v", effect: "NoExecute" }],
      },
    ],
  };
}

/** Every commit `store` announces from now on, in order. */
export function commitsOf(store: KintsugiStore): StoreCommit[] {
  const commits: StoreCommit[] = [];
  store.onCommit((c) => commits.push(c));
  return commits;
}

/**
 * Writes a marker (a health-check pause named `name`) and returns the commit it announces. A write resolves after its
 * own commit was announced, so whatever a listener saw before the marker came before it: this is how the suite shows
 * that a failed write announced nothing, without waiting for a time.
 */
export async function marker(store: KintsugiStore, name: string): Promise<StoreCommit> {
  await store.settings.setHealthCheckPaused(name, true);
  return { entries: [], outcome: null, generation: null, settings: [`health-check-paused:${name}`] };
}
