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
import type { RepairTimelinePoint } from "../domain/stats/repair-timeline.js";

export { HoldRefusedError, NotLeaderError, StoreBusyError, StoreConflictError, StoreLimitError, StoreUnavailableError } from "./store-errors.js";

/**
 * The store port: what kintsugi keeps, whichever backend keeps it (SQLite on one machine, etcd next to sabakan).
 *
 * Reads are synchronous: on both backends they are served from a mirror fed by the driver's watch. Writes are
 * asynchronous and atomic; those that decide on what is stored take a `decide` function that the store calls on the
 * mirror, commits with compare-and-swap, and calls again on a fresh mirror after a conflict. A `decide` function must
 * therefore be pure: it may be called more than once.
 *
 * Every committed write is announced once, in commit order, to `onCommit` listeners, on every replica (from the
 * driver's watch). A write's promise resolves only after its own commit was announced on this replica, so what the
 * caller reads next includes it. A write that did not commit announces nothing.
 */
export interface KintsugiStore {
  readonly backend: StoreBackend;
  readonly entries: RepairEntryPort;
  readonly settings: SettingsPort;
  readonly outcomes: AutoRepairOutcomePort;
  readonly generations: ClusterGenerationPort;
  readonly holds: MachineHoldPort;
  /** The repairs that ended (finished or dequeued), kept after their entries leave the queue. */
  readonly finished: FinishedRepairPort;
  /** What each sabakan poll's intake and each health check's remediation read and did, for the what-if replay. */
  readonly pollRecords: PollRecordPort;
  /**
   * The poller's decide-and-commit: `decide` sees the queue, returns the entries to add and the outcome to record;
   * both land in one write or neither does. The outcome gets the entries as stored (with their indexes). The result
   * carries the decision that was committed (`decide` may run more than once), with whatever else the caller put in
   * it (its rule's whole decision), typed as `decide` returns it.
   */
  enqueue<D extends EnqueueDecision>(decide: (entries: readonly RepairEntry[]) => D, now: number, actor: string): Promise<EnqueueResult<D>>;
  /**
   * The same store whose every write also requires that `guard` still holds (leader writes; see {@link WriteGuard};
   * a single writer's store needs none), its history records naming `replica` when given.
   */
  guarded(guard: WriteGuard, replica?: string): KintsugiStore;
  /** Calls `listener` with every commit from now on, in commit order, once each; returns how to stop. */
  onCommit(listener: (commit: StoreCommit) => void): () => void;
  /** What GET /health reports of the store. */
  health(): StoreHealth;
  /** Stops the watch (etcd) or closes the file and releases its lock (SQLite); the last step of shutdown. */
  close(): Promise<void>;
}

export type StoreBackend = "sqlite" | "etcd";

export type StoreHealth =
  { readonly backend: StoreBackend; readonly healthy: true } | { readonly backend: StoreBackend; readonly healthy: false; readonly reason: string };

/**
 * A condition every guarded write carries: on etcd, that this replica's election key still exists with the create
 * revision it had when this replica became leader. `current()` returns null when this replica is not the leader: a
 * guarded write then fails with {@link NotLeaderError} without touching the store. SQLite needs no guard (its file
 * lock already makes its process the only writer), so its guarded store is the store itself.
 */
export interface WriteGuard {
  current(): { readonly key: string; readonly createRevision: string } | null;
}

/** One committed write: what it changed. Only the parts it touched are non-empty. */
export interface StoreCommit {
  /** The repair entry changes, in the order they were made. */
  readonly entries: readonly RepairChange[];
  readonly outcome: AutoRepairOutcome | null;
  /** A new generation record, or one whose `repeats` grew. */
  readonly generation: ClusterGeneration | null;
  /** The settings keys written (see {@link SETTINGS_KEYS}). */
  readonly settings: readonly string[];
  /** The machine holds set, released or expired, in the order they were made; absent when the write changed none. */
  readonly holds?: readonly HoldChange[];
}

/** A committed change of a stored machine hold, and who made it (the hold's own `setBy` says who set it). */
export interface HoldChange {
  readonly kind: "set" | "released" | "expired";
  /** The hold as set, or as it was when released or removed. */
  readonly hold: StoredMachineHold;
  readonly actor: string;
}

/** What a hold write's `decide` returns: the hold to store, or why not (see validateHoldRequest). */
export type HoldDecision = { readonly ok: true; readonly hold: StoredMachineHold } | { readonly ok: false; readonly message: string };

/**
 * The machine holds set through the API (src/domain/holds/machine-holds.ts), one per address. Every write decides on the
 * stored holds inside the write (re-decided after a conflict on etcd), so replicas cannot together pass a bound.
 */
export interface MachineHoldPort {
  /** Every stored hold, expired ones too until they are removed, ordered by address (frozen). */
  list(): StoredMachineHold[];
  /** Stores (or replaces) the hold `decide` returns given the stored holds; throws {@link HoldRefusedError} with its message. */
  hold(decide: (stored: readonly StoredMachineHold[]) => HoldDecision, actor: string): Promise<StoredMachineHold>;
  /** Removes the stored hold of `address` (canonical) and returns it; {@link HoldRefusedError} (notHeldMessage) when there is none. */
  release(address: string, actor: string): Promise<StoredMachineHold>;
  /** Removes the holds that have ended by `now` in one write, announced as `expired`; returns them (empty: no write). */
  removeExpired(now: number, actor: string): Promise<StoredMachineHold[]>;
}

/**
 * An entry after a committed change, the entry as it was just before it (null for a new entry), and the history
 * record that describes the change. `previous` lets readers tell transitions apart by state, not by reason text.
 */
export interface RepairChange {
  readonly entry: RepairEntry;
  readonly previous: RepairEntry | null;
  readonly record: RepairHistoryRecord;
}

/** One change an entry write makes: the entry as it is after it, and its history record. */
export interface EntryWrite {
  readonly entry: RepairEntry;
  readonly kind: RepairHistoryKind;
  readonly reason: string;
  readonly detail?: string | null;
}

export interface EnqueueDecision {
  readonly add: ReadonlyArray<{ readonly entry: UnindexedRepairEntry; readonly reason: string }>;
  /** null = record no outcome (health checks). */
  readonly outcome: ((enqueued: readonly RepairEntry[]) => Omit<AutoRepairOutcome, "sequence">) | null;
  /** What the poll's intake read and did, kept in the same write for the what-if replay; absent: none. */
  readonly pollRecord?: PollRecord;
  /** What a health check's remediation read and did, kept in the same write for the replay; absent: none. */
  readonly remediationRecord?: RemediationRecord;
}

export interface EnqueueResult<D extends EnqueueDecision = EnqueueDecision> {
  readonly changes: readonly RepairChange[];
  readonly outcome: AutoRepairOutcome | null;
  /** The decision this write committed: the last one `decide` returned. */
  readonly decision: D;
}

/** The repair entries and their append-only history. Indexes and history sequences are monotonic, never reused. */
export interface RepairEntryPort {
  /** The entry with this index, or null when there is none (never was, or dequeued). */
  get(index: number): RepairEntry | null;
  /** Every entry in the queue, ordered by index, in a new array (entries frozen: callers share them). */
  list(): RepairEntry[];
  /** The history of one index, oldest first; it outlives the entry. */
  history(index: number): Promise<RepairHistoryRecord[]>;
  /**
   * The histories of the entries indexed `firstIndex` to `lastIndex` (inclusive) as timeline points, oldest first,
   * reading at most `limit` records in one key range, read in pages.
   */
  timelines(firstIndex: number, lastIndex: number, limit: number): Promise<RepairTimelines>;
  /** Appends an entry and its `created` record, made by `actor`; returns it with its new index. */
  add(entry: UnindexedRepairEntry, reason: string, now: number, actor: string): Promise<RepairChange>;
  /**
   * Appends every entry `pick` returns (given the queue as stored), each with its `created` record, in as many writes
   * as etcd's limits need: each write picks again on the stored queue, so `pick` must leave out what is added already
   * (an import does, by source). Returns the changes made, ordered by index.
   */
  addAll(pick: (entries: readonly RepairEntry[]) => readonly NewEntryWrite[], now: number, actor: string): Promise<RepairChange[]>;
  /**
   * Changes one entry: `decide` gets the stored entry (null when it is gone) and returns the writes to make, in
   * order (each one's entry is the entry after it; the last is what is stored), or null to make none. Returns the
   * changes made, empty when `decide` declined. This is how a decision taken on an older read is re-checked.
   */
  change(index: number, decide: (current: RepairEntry | null) => readonly EntryWrite[] | null, now: number, actor: string): Promise<RepairChange[]>;
  /** Removes an entry when `decide` (given the stored entry) returns a reason; records `dequeued`; history stays. */
  dequeue(index: number, decide: (current: RepairEntry) => string | null, now: number, actor: string): Promise<RepairChange | null>;
  /** Marks for deletion every entry `select` picks that is not marked yet; returns them, ordered by index. */
  requestDelete(select: (entry: RepairEntry) => boolean, reason: string, now: number, actor: string): Promise<RepairChange[]>;
  /** Clears the drain back-off (count 0, no expiry) of every entry that has one. */
  resetBackoff(reason: string, now: number, actor: string): Promise<RepairChange[]>;
}

/** An entry to add and the reason its `created` record gives. */
export interface NewEntryWrite {
  readonly entry: UnindexedRepairEntry;
  readonly reason: string;
}

/** What {@link RepairEntryPort.timelines} read. */
export interface RepairTimelines {
  /** Each index's points (indexes without history are absent), whole for every index up to `completeThrough`. */
  readonly timelines: ReadonlyMap<number, readonly RepairTimelinePoint[]>;
  /** The highest index whose history was read whole: `lastIndex` unless `limit` cut the read short. */
  readonly completeThrough: number;
}

/** Switches and values operators change at run time; an absent value means the default. */
export interface SettingsPort {
  repairQueueEnabled(): boolean;
  setRepairQueueEnabled(enabled: boolean): Promise<void>;
  autoRepairEnabled(): boolean;
  setAutoRepairEnabled(enabled: boolean): Promise<void>;
  autoRepairVariables(): MachineQueryVariables;
  /** The auto-repair variables as last set, as text (see variablesText for those set without one); null when never set. */
  autoRepairVariablesText(): string | null;
  /** Replaces the auto-repair variables; `text`, when given, is what they were read from, kept byte for byte. */
  setAutoRepairVariables(variables: MachineQueryVariables, text?: string): Promise<void>;
  clusterGenerationEnabled(): boolean;
  setClusterGenerationEnabled(enabled: boolean): Promise<void>;
  clusterVariables(): MachineQueryVariables;
  /** The cluster variables as last set, as text (as autoRepairVariablesText); null when never set. */
  clusterVariablesText(): string | null;
  /** Replaces the cluster variables; `text`, when given, is what they were read from, kept byte for byte. */
  setClusterVariables(variables: MachineQueryVariables, text?: string): Promise<void>;
  clusterTemplate(): StoredClusterTemplate | null;
  setClusterTemplate(template: StoredClusterTemplate): Promise<void>;
  healthCheckPaused(name: string): boolean | null;
  setHealthCheckPaused(name: string, paused: boolean): Promise<void>;
  /** Defaults, overlaid by the config file's initial values, overlaid by what was set through the API. */
  constraints(): Constraints;
  /** Stores every value of `set` (merged with what is stored, atomically), so a later config change does not undo it. */
  setConstraints(set: Partial<Constraints>): Promise<void>;
  /** What the leader last published of why entries wait (see publishedWaits); empty when nothing or nothing readable was. */
  repairWaits(): readonly PublishedWait[];
  /** Replaces the published waits (the leader, when they change), for every replica to serve. */
  setRepairWaits(waits: readonly PublishedWait[]): Promise<void>;
  /** When operators last released each machine (see EscalationReleases); a stored value of the wrong shape reads as none. */
  escalationReleases(): EscalationReleases;
  /** Notes that `address` (canonical) was released at `at`, merged with what is stored in the same write (withRelease). */
  noteRelease(address: string, at: number): Promise<void>;
}

/** The settings keys as stored (both backends), with the health-check pause keys `health-check-paused:NAME`. */
export const SETTINGS_KEYS = [
  "repair-queue-enabled",
  "auto-repair-enabled",
  "auto-repair-variables",
  "cluster-generation-enabled",
  "cluster-variables",
  "cluster-template",
  "constraints",
  "repair-waits",
  "escalation-releases",
] as const;

/** The outcomes of sabakan polls, newest {@link KEPT_OUTCOMES} kept. */
export interface AutoRepairOutcomePort {
  record(outcome: Omit<AutoRepairOutcome, "sequence">): Promise<AutoRepairOutcome>;
  /** The newest `count` outcomes (all kept when null), oldest first; read from the store (a replica does not keep them in memory). */
  last(count: number | null): Promise<AutoRepairOutcome[]>;
}

/**
 * The repairs that ended: one record per entry, written in the same write as the change that finished it, or that
 * dequeued it (unfinished: `deleted`); the newest 10,000 (KEPT_FINISHED_REPAIRS) kept. Kept apart from the history
 * because every pass reads them: the history is append-only and never pruned, and on etcd it is not mirrored (a read
 * is a range read over every record ever written), while these are bounded and served from memory.
 */
export interface FinishedRepairPort {
  /** The records finished at or after `since` (ms; all when null or absent), newest first. */
  list(since?: number | null): FinishedRepair[];
  /** The newest kept record of the entry with index `index` (served from memory), if any. */
  ofEntry(index: number): FinishedRepair | undefined;
  /**
   * The stored summary of the history of the repair whose record has `sequence` (null: it has no history), or
   * undefined when none is stored (not summarized yet, or the record is not kept).
   */
  summaryOf(sequence: number): RepairHistorySummary | null | undefined;
  /**
   * Stores the summaries of kept records (see RepairSummaryKeeper), so that no replica reads histories again to
   * answer statistics; a record that is gone or already has one is left as it is. Returns how many were stored.
   */
  storeSummaries(summaries: ReadonlyArray<{ readonly sequence: number; readonly summary: RepairHistorySummary | null }>): Promise<number>;
}

/** Generated cluster configurations and failed rounds, newest 100 kept; the configuration in force never pruned. */
export interface ClusterGenerationPort {
  current(): ClusterGeneration | null;
  latest(): ClusterGeneration | null;
  controlPlaneAddresses(): readonly string[];
  generation(generation: number): ClusterGeneration | null;
  last(count: number | null): ClusterGeneration[];
  /**
   * `policy` (here and below): the worker selection the round ran under; absent: weighted. `templateSetAt`: when the
   * template the configuration was made from was set (see {@link ClusterGeneration.templateSetAt}); absent: unknown.
   */
  recordGenerated(
    time: number,
    trigger: GenerationTrigger,
    cluster: GeneratedCluster,
    changes: readonly string[],
    policy?: WorkerSelection,
    templateSetAt?: number | null,
  ): Promise<ClusterGeneration>;
  recordRecovered(time: number, trigger: GenerationTrigger, policy?: WorkerSelection): Promise<ClusterGeneration>;
  recordFailed(
    time: number,
    trigger: GenerationTrigger,
    error: string,
    policy?: WorkerSelection,
  ): Promise<{ readonly record: ClusterGeneration; readonly repeated: boolean }>;
}

/** The poll records read back: the readable ones, oldest first, and how many stored ones could not be read. */
export interface PollRecordRead {
  readonly records: readonly PollRecord[];
  readonly unreadable: number;
}

/** The sabakan polls' records (src/domain/replay/poll-record.ts), kept by age and by total bytes (`poll_records`). */
export interface PollRecordPort {
  /** The records at or after `since` (epoch ms), oldest first, at most `limit` (read from the backend, not a mirror). */
  since(since: number, limit: number): Promise<PollRecordRead>;
  /** The health checks' remediation records at or after `since`, oldest first, at most `limit`. */
  remediations(since: number, limit: number): Promise<{ readonly records: readonly RemediationRecord[]; readonly unreadable: number }>;
  /**
   * The records of `area` at or after `since` as stored, oldest first, at most `limit`, undecoded: for a reader that
   * decodes them elsewhere (the replay's worker thread, so that decoding a month of records never blocks the API).
   */
  stored(area: "intake" | "health-check", since: number, limit: number): Promise<StoredRecords>;
  /** How many records are kept and their stored bytes. */
  size(): { readonly records: number; readonly bytes: number };
}

/**
 * Records as stored: each one's deflated JSON (as encodePollRecord wrote it) and the time its key says it has (NaN
 * where the store keeps none apart from the body), and how many could not even be taken apart from their storage.
 */
export interface StoredRecords {
  readonly bodies: readonly Uint8Array[];
  readonly times: readonly number[];
  readonly unreadable: number;
}
