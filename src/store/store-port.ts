import type { AutoRepairOutcome } from "../domain/intake/auto-repair-outcome.js";
import type { ClusterGeneration, GenerationTrigger, StoredClusterTemplate } from "../domain/cluster/generation-record.js";
import type { GeneratedCluster } from "../domain/cluster/types.js";
import type { WorkerSelection } from "../domain/cluster/worker-selection.js";
import type { Constraints } from "../domain/shared/constraints.js";
import type { FinishedRepair } from "../domain/queue/finished-repair.js";
import type { MachineQueryVariables } from "../domain/sabakan/machine-params.js";
import type { StoredMachineHold } from "../domain/holds/machine-holds.js";
import type { EscalationReleases } from "../domain/escalation/escalation-releases.js";
import type { PollRecord } from "../domain/replay/poll-record.js";
import type { PublishedWait } from "../domain/queue/published-waits.js";
import type { RemediationRecord } from "../domain/replay/remediation-record.js";
import type { RepairEntry, UnindexedRepairEntry } from "../domain/queue/repair-entry.js";
import type { RepairHistoryKind, RepairHistoryRecord } from "../domain/queue/repair-history.js";
import type { RepairHistorySummary } from "../domain/stats/repair-history-summary.js";
import type { RepairTimelines } from "../domain/stats/repair-timeline.js";

export { HoldRefusedError, NotLeaderError, StoreBusyError, StoreConflictError, StoreLimitError, StoreUnavailableError } from "./store-errors.js";

/**
 * The store port: what kintsugi keeps, on SQLite or etcd. Reads are synchronous, served from a mirror fed by the
 * driver's watch. Writes are atomic; a `decide` function is called on the mirror and again after a conflict, so it
 * must be pure. Every commit is announced once, in commit order, to `onCommit` listeners on every replica; a write
 * resolves only after its own commit was announced here, so what the caller reads next includes it.
 */
export interface KintsugiStore {
  readonly backend: StoreBackend;
  readonly entries: RepairEntryPort;
  readonly settings: SettingsPort;
  readonly outcomes: AutoRepairOutcomePort;
  readonly generations: ClusterGenerationPort;
  readonly holds: MachineHoldPort;
  readonly finished: FinishedRepairPort;
  readonly pollRecords: PollRecordPort;
  /**
   * The poller's decide-and-commit: `decide` sees the queue and returns the entries to add and the outcome to record,
   * which land together. The result carries the decision that was committed (`decide` may run more than once).
   */
  enqueue<D extends EnqueueDecision>(decide: (entries: readonly RepairEntry[]) => D, now: number, actor: string): Promise<EnqueueResult<D>>;
  /** The same store whose every write also requires that `guard` holds, its history records naming `replica`. */
  guarded(guard: WriteGuard, replica?: string): KintsugiStore;
  /** Calls `listener` with every commit from now on, in commit order; returns how to stop. */
  onCommit(listener: (commit: StoreCommit) => void): () => void;
  health(): StoreHealth;
  close(): Promise<void>;
}

export type StoreBackend = "sqlite" | "etcd";

export type StoreHealth =
  { readonly backend: StoreBackend; readonly healthy: true } | { readonly backend: StoreBackend; readonly healthy: false; readonly reason: string };

/**
 * On etcd, that this replica's election key still exists with the create revision it had when it became leader;
 * `current()` is null when it is not the leader (a guarded write then fails with {@link NotLeaderError}). SQLite's
 * file lock already makes its process the only writer, so it needs no guard.
 */
export interface WriteGuard {
  current(): { readonly key: string; readonly createRevision: string } | null;
}

/** What one committed write changed; only the parts it touched are non-empty (`holds` absent when none). */
export interface StoreCommit {
  readonly entries: readonly RepairChange[];
  readonly outcome: AutoRepairOutcome | null;
  /** A new generation record, or one whose `repeats` grew. */
  readonly generation: ClusterGeneration | null;
  /** The settings names written. */
  readonly settings: readonly string[];
  readonly holds?: readonly HoldChange[];
}

/** A committed change of a stored machine hold (the hold as set, or as it was when removed), and who made it. */
export interface HoldChange {
  readonly kind: "set" | "released" | "expired";
  readonly hold: StoredMachineHold;
  readonly actor: string;
}

/** What a hold write's `decide` returns: the hold to store, or why not. */
export type HoldDecision = { readonly ok: true; readonly hold: StoredMachineHold } | { readonly ok: false; readonly message: string };

/**
 * The machine holds, one per address. Every write decides on the stored holds inside the write, so replicas cannot
 * together pass a bound. Refusals throw {@link HoldRefusedError}.
 */
export interface MachineHoldPort {
  /** Every stored hold, expired ones too until they are removed, ordered by address. */
  list(): StoredMachineHold[];
  hold(decide: (stored: readonly StoredMachineHold[]) => HoldDecision, actor: string): Promise<StoredMachineHold>;
  /** Removes the stored hold of `address` (canonical) and returns it. */
  release(address: string, actor: string): Promise<StoredMachineHold>;
  /** Removes the holds that have ended by `now`, announced as `expired`; returns them. */
  removeExpired(now: number, actor: string): Promise<StoredMachineHold[]>;
}

/** An entry after a committed change, as it was before it (null: new), and the history record of the change. */
export interface RepairChange {
  readonly entry: RepairEntry;
  readonly previous: RepairEntry | null;
  readonly record: RepairHistoryRecord;
}

/** One change an entry write makes: the entry after it, and its history record's fields. */
export interface EntryWrite {
  readonly entry: RepairEntry;
  readonly kind: RepairHistoryKind;
  readonly reason: string;
  readonly detail?: string | null;
}

export interface EnqueueDecision {
  readonly add: ReadonlyArray<{ readonly entry: UnindexedRepairEntry; readonly reason: string }>;
  /** null: record no outcome (health checks). */
  readonly outcome: ((enqueued: readonly RepairEntry[]) => Omit<AutoRepairOutcome, "sequence">) | null;
  /** What the poll's intake or a health check's remediation read and did, kept in the same write for the replay. */
  readonly pollRecord?: PollRecord;
  readonly remediationRecord?: RemediationRecord;
}

export interface EnqueueResult<D extends EnqueueDecision = EnqueueDecision> {
  readonly changes: readonly RepairChange[];
  readonly outcome: AutoRepairOutcome | null;
  readonly decision: D;
}

/** The repair entries and their append-only history. Indexes and history sequences are monotonic, never reused. */
export interface RepairEntryPort {
  get(index: number): RepairEntry | null;
  /** Every entry in the queue, ordered by index (entries frozen: callers share them). */
  list(): RepairEntry[];
  /** The history of one index, oldest first; it outlives the entry. */
  history(index: number): Promise<RepairHistoryRecord[]>;
  /** The histories of entries `firstIndex` to `lastIndex` as timeline points, reading at most `limit` records. */
  timelines(firstIndex: number, lastIndex: number, limit: number): Promise<RepairTimelines>;
  add(entry: UnindexedRepairEntry, reason: string, now: number, actor: string): Promise<RepairChange>;
  /**
   * Appends every entry `pick` returns, in as many writes as etcd's limits need; each write picks again on the stored
   * queue, so `pick` must leave out what is added already.
   */
  addAll(pick: (entries: readonly RepairEntry[]) => readonly NewEntryWrite[], now: number, actor: string): Promise<RepairChange[]>;
  /**
   * Changes one entry: `decide` gets the stored entry (null when gone) and returns the writes to make in order (the
   * last one's entry is stored), or null for none. This is how a decision taken on an older read is re-checked.
   */
  change(index: number, decide: (current: RepairEntry | null) => readonly EntryWrite[] | null, now: number, actor: string): Promise<RepairChange[]>;
  /** Removes an entry when `decide` returns a reason, recording `dequeued`; its history stays. */
  dequeue(index: number, decide: (current: RepairEntry) => string | null, now: number, actor: string): Promise<RepairChange | null>;
  /** Marks for deletion every entry `select` picks that is not marked yet. */
  requestDelete(select: (entry: RepairEntry) => boolean, reason: string, now: number, actor: string): Promise<RepairChange[]>;
  /** Clears the drain back-off of every entry that has one. */
  resetBackoff(reason: string, now: number, actor: string): Promise<RepairChange[]>;
}

export type NewEntryWrite = EnqueueDecision["add"][number];

/** Switches and values operators change at run time; an absent value means the default. */
export interface SettingsPort {
  repairQueueEnabled(): boolean;
  setRepairQueueEnabled(enabled: boolean): Promise<void>;
  autoRepairEnabled(): boolean;
  setAutoRepairEnabled(enabled: boolean): Promise<void>;
  autoRepairVariables(): MachineQueryVariables;
  /** The variables as last set, as text; null when never set. */
  autoRepairVariablesText(): string | null;
  /** `text`, when given, is what the variables were read from, kept byte for byte. */
  setAutoRepairVariables(variables: MachineQueryVariables, text?: string): Promise<void>;
  clusterGenerationEnabled(): boolean;
  setClusterGenerationEnabled(enabled: boolean): Promise<void>;
  clusterVariables(): MachineQueryVariables;
  clusterVariablesText(): string | null;
  setClusterVariables(variables: MachineQueryVariables, text?: string): Promise<void>;
  clusterTemplate(): StoredClusterTemplate | null;
  setClusterTemplate(template: StoredClusterTemplate): Promise<void>;
  healthCheckPaused(name: string): boolean | null;
  setHealthCheckPaused(name: string, paused: boolean): Promise<void>;
  /** Defaults, overlaid by the config file's initial values, overlaid by what was set through the API. */
  constraints(): Constraints;
  /** Stores every value of `set`, merged with what is stored, so a later config change does not undo it. */
  setConstraints(set: Partial<Constraints>): Promise<void>;
  /** What the leader last published of why entries wait; empty when nothing readable was. */
  repairWaits(): readonly PublishedWait[];
  setRepairWaits(waits: readonly PublishedWait[]): Promise<void>;
  /** When operators last released each machine; a stored value of the wrong shape reads as none. */
  escalationReleases(): EscalationReleases;
  /** Notes that `address` was released at `at`, merged with what is stored in the same write. */
  noteRelease(address: string, at: number): Promise<void>;
}

/** The outcomes of sabakan polls, the newest kept. */
export interface AutoRepairOutcomePort {
  record(outcome: Omit<AutoRepairOutcome, "sequence">): Promise<AutoRepairOutcome>;
  /** The newest `count` outcomes (all kept when null), oldest first; read from the store, not memory. */
  last(count: number | null): Promise<AutoRepairOutcome[]>;
}

/**
 * The repairs that ended, one record per entry, written with the change that finished or dequeued it; the newest
 * KEPT_FINISHED_REPAIRS kept. Every pass reads them: the history is never pruned and on etcd not mirrored, while
 * these are bounded and served from memory.
 */
export interface FinishedRepairPort {
  /** The records finished at or after `since` (all when null or absent), newest first. */
  list(since?: number | null): FinishedRepair[];
  /**
   * Every kept record, oldest first: one frozen array, the same until a record or a stored summary changes, so a
   * reader that derives something from them (the statistics) tells by its identity when to derive it again.
   */
  kept(): readonly FinishedRepair[];
  ofEntry(index: number): FinishedRepair | undefined;
  /** The stored summary of a record's history (null: it has none); undefined when none is stored. */
  summaryOf(sequence: number): RepairHistorySummary | null | undefined;
  /** Stores the summaries of kept records that have none yet; returns how many were stored. */
  storeSummaries(summaries: ReadonlyArray<{ readonly sequence: number; readonly summary: RepairHistorySummary | null }>): Promise<number>;
}

export interface FailedGeneration {
  readonly record: ClusterGeneration;
  readonly repeated: boolean;
}

/** Generated cluster configurations and failed rounds, newest 100 kept; the configuration in force never pruned. */
export interface ClusterGenerationPort {
  current(): ClusterGeneration | null;
  latest(): ClusterGeneration | null;
  controlPlaneAddresses(): readonly string[];
  generation(generation: number): ClusterGeneration | null;
  last(count: number | null): ClusterGeneration[];
  /** `policy`: the worker selection the round ran under (absent: weighted); `templateSetAt`: see ClusterGeneration. */
  recordGenerated(
    time: number,
    trigger: GenerationTrigger,
    cluster: GeneratedCluster,
    changes: readonly string[],
    policy?: WorkerSelection,
    templateSetAt?: number | null,
  ): Promise<ClusterGeneration>;
  recordRecovered(time: number, trigger: GenerationTrigger, policy?: WorkerSelection): Promise<ClusterGeneration>;
  /** `repeated`: the failure repeats the latest record's, which counts it instead of adding one. */
  recordFailed(time: number, trigger: GenerationTrigger, error: string, policy?: WorkerSelection): Promise<FailedGeneration>;
}

/** The replay records of sabakan polls and health checks, kept by age and by total bytes; read from the store. */
export interface PollRecordPort {
  /**
   * The records of one kind at or after `since` (epoch ms), oldest first, at most `limit`, undecoded: the replay's
   * worker thread decodes them (decoding a month of records must not block the API).
   */
  stored(area: "intake" | "health-check", since: number, limit: number): Promise<StoredRecords>;
  size(): { readonly records: number; readonly bytes: number };
}

/** Records as stored (deflated JSON) with the times their keys say, and how many could not be taken apart. */
export interface StoredRecords {
  readonly bodies: readonly Uint8Array[];
  readonly times: readonly number[];
  readonly unreadable: number;
}
