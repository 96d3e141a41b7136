import type { AutoRepairOutcome } from "../../domain/intake/auto-repair-outcome.js";
import type { GenerationTrigger } from "../../domain/cluster/generation-record.js";
import type { WorkerSelection } from "../../domain/cluster/worker-selection.js";
import type { StoredMachineHold } from "../../domain/holds/machine-holds.js";
import type { FinishedRepair } from "../../domain/queue/finished-repair.js";
import type { PollRecord } from "../../domain/replay/poll-record.js";
import type { RemediationRecord } from "../../domain/replay/remediation-record.js";
import type { RepairEntry } from "../../domain/queue/repair-entry.js";
import type { RepairHistoryRecord } from "../../domain/queue/repair-history.js";

/**
 * A backend-neutral snapshot of a store: everything it keeps, as it keeps it, one item at a time. An export yields
 * the items in the canonical order, so that two stores holding the same data yield the same items and hash alike:
 * - the settings as stored (raw: a key never set is absent, no default is filled in), by name;
 * - the repair entries, by index;
 * - the history, by entry index, then by sequence within one index (both backends keep it that way);
 * - the kept poll outcomes, by sequence;
 * - the kept generation records, by sequence;
 * - the machine holds, by address (UTF-8 bytes);
 * - the kept finished-repair records, by sequence;
 * - the kept replay records (a poll's intake, a health check's remediation), by sequence, both kinds together;
 * - last, the counters: what the store hands out next, so a copy never reuses an index or a sequence.
 */
export type SnapshotItem =
  | { readonly kind: "setting"; readonly name: string; readonly value: unknown }
  | { readonly kind: "entry"; readonly entry: RepairEntry }
  | { readonly kind: "history"; readonly record: RepairHistoryRecord }
  | { readonly kind: "outcome"; readonly outcome: AutoRepairOutcome }
  | { readonly kind: "generation"; readonly generation: SnapshotGeneration }
  | { readonly kind: "hold"; readonly hold: StoredMachineHold }
  | { readonly kind: "finished"; readonly finished: FinishedRepair }
  | { readonly kind: "replay"; readonly replay: SnapshotReplayRecord }
  | { readonly kind: "counters"; readonly counters: SnapshotCounters };

export type SnapshotItemKind = SnapshotItem["kind"];

/** The kinds in canonical order. */
export const SNAPSHOT_ITEM_KINDS = [
  "setting",
  "entry",
  "history",
  "outcome",
  "generation",
  "hold",
  "finished",
  "replay",
  "counters",
] as const satisfies readonly SnapshotItemKind[];

/**
 * A replay record as decoded (both stores keep it deflated, with bytes of their own), with its sequence: a copy carries
 * the record, and the hash covers what it says, not how a store compressed it. No counter follows it: each store
 * hands out the next sequence above the newest it keeps.
 */
export type SnapshotReplayRecord = { readonly sequence: number } & (
  { readonly area: "intake"; readonly record: PollRecord } | { readonly area: "health-check"; readonly record: RemediationRecord }
);

/**
 * A generation record as stored: `cluster` is the configuration's JSON text exactly as it was recorded (both backends
 * keep it gzip'd), so a copy carries the very text, not a re-serialization of it.
 */
export interface SnapshotGeneration {
  readonly sequence: number;
  readonly time: number;
  readonly lastTime: number;
  readonly repeats: number;
  readonly trigger: GenerationTrigger;
  readonly policy: WorkerSelection;
  readonly generation: number;
  readonly cluster: string | null;
  readonly changes: readonly string[];
  readonly error: string | null;
}

/**
 * What the store hands out next. Each is above every number the store holds and every one it ever handed out (an
 * entry dequeued, an outcome pruned), so a copy goes on where the original stopped.
 */
export interface SnapshotCounters {
  readonly nextIndex: number;
  readonly nextHistorySequence: number;
  readonly nextOutcomeSequence: number;
  readonly nextGenerationSequence: number;
}

/** A store read as a snapshot. */
export interface SnapshotSource {
  /** The store, as the summary and errors name it: `sqlite:/var/lib/kintsugi/kintsugi.db`, `etcd prefix /kintsugi/ ...`. */
  readonly description: string;
  /** The snapshot's items in canonical order, read consistently (one transaction, or one etcd revision), streamed. */
  items(): AsyncIterable<SnapshotItem>;
  /** About how many items it holds (its keys, or its rows): what a copy's progress counts toward. */
  size(): Promise<number>;
  close(): Promise<void>;
}

/** What a copy leaves in the target while it writes: a store holding it refuses to open. */
export interface CopyMarker {
  /** Fresh per copy: the copy only goes on while the marker it wrote is there. */
  readonly copyId: string;
  /** The source's description. */
  readonly source: string;
  /** ISO time the copy started. */
  readonly startedAt: string;
}

/**
 * An empty store a snapshot is written into, in bounded chunks. The copy is not atomic across chunks: `begin` writes
 * the copy marker first and `finish` removes it last, once the copy was verified, so a copy cut off in between leaves
 * a store that refuses to open (UnfinishedCopyError) rather than one that is silently incomplete.
 */
export interface SnapshotTarget {
  readonly description: string;
  /** How an operator empties this store before copying into it again (`etcdctl del --prefix /kintsugi/`). */
  readonly howToEmpty: string;
  /** The most items, and the most bytes of their canonical JSON, one chunk may carry (a larger item goes alone). */
  readonly chunkLimits: { readonly items: number; readonly bytes: number };
  /** Throws {@link TargetNotEmptyError} when the store holds anything; writes nothing either way. */
  checkEmpty(): Promise<void>;
  /** Writes the copy marker (and whatever an empty store needs to hold it); fails when the store got data meanwhile. */
  begin(marker: CopyMarker): Promise<void>;
  /** Writes a chunk of items, in order, in one transaction. */
  writeChunk(items: readonly SnapshotItem[]): Promise<void>;
  /** The snapshot of what was written, read back (the marker is expected there). */
  items(): AsyncIterable<SnapshotItem>;
  /** Removes the copy marker: the store can be opened. */
  finish(): Promise<void>;
  close(): Promise<void>;
}

/** The target of a copy already holds data: a copy goes only into an empty store. Nothing was written. */
export class TargetNotEmptyError extends Error {
  override readonly name = "TargetNotEmptyError";
}

/** The source cannot be copied as it is (a running replica, a foreign key, an unreadable value, an unfinished copy). */
export class SnapshotSourceError extends Error {
  override readonly name = "SnapshotSourceError";
}
