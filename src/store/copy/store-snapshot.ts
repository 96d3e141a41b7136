import type { AutoRepairOutcome } from "../../domain/intake/auto-repair-outcome.js";
import type { StoredMachineHold } from "../../domain/holds/machine-holds.js";
import type { FinishedRepair } from "../../domain/queue/finished-repair.js";
import type { ReplayRecord } from "../poll-record-schema.js";
import type { RepairEntry } from "../../domain/queue/repair-entry.js";
import type { RepairHistoryRecord } from "../../domain/queue/repair-history.js";
import type { CopyMarker } from "./copy-marker.js";
import type { SnapshotGeneration } from "./snapshot-kinds.js";
import type { SnapshotCounters } from "./snapshot-digest.js";
import { NamedError } from "../store-errors.js";

/**
 * A backend-neutral snapshot of a store, one item at a time, in the canonical order (so two stores holding the same
 * data hash alike): settings as stored (no default filled in) by name; entries by index; history by entry index, then
 * sequence; outcomes, generation records by sequence; holds by address (UTF-8 bytes); finished repairs and replay
 * records (both kinds together) by sequence; last, the counters, so a copy never reuses an index or a sequence.
 */
export type SnapshotItem =
  | { readonly kind: "setting"; readonly name: string; readonly value: unknown }
  | { readonly kind: "entry"; readonly entry: RepairEntry }
  | { readonly kind: "history"; readonly record: RepairHistoryRecord }
  | { readonly kind: "outcome"; readonly outcome: AutoRepairOutcome }
  | { readonly kind: "generation"; readonly generation: SnapshotGeneration }
  | { readonly kind: "hold"; readonly hold: StoredMachineHold }
  | { readonly kind: "finished"; readonly finished: FinishedRepair }
  // A replay record as decoded: the hash covers what it says, not how a store compressed it.
  | { readonly kind: "replay"; readonly replay: { readonly sequence: number } & ReplayRecord }
  | { readonly kind: "counters"; readonly counters: SnapshotCounters };

export type SnapshotItemKind = SnapshotItem["kind"];

/** A store read as a snapshot, its items streamed in canonical order and read consistently. */
export interface SnapshotSource {
  /** `sqlite:/var/lib/kintsugi/kintsugi.db`, `etcd prefix /kintsugi/ ...`. */
  readonly description: string;
  items(): AsyncIterable<SnapshotItem>;
  /** About how many items it holds: what a copy's progress counts toward. */
  size(): Promise<number>;
  close(): Promise<void>;
}

/**
 * An empty store a snapshot is written into, in chunks of one transaction each. `begin` writes the copy marker first
 * and `finish` removes it once the copy was verified, so a copy cut off in between leaves a store that refuses to
 * open rather than one silently incomplete.
 */
export interface SnapshotTarget {
  readonly description: string;
  /** How an operator empties this store before copying into it again. */
  readonly howToEmpty: string;
  /** The most items, and bytes of their canonical JSON, one chunk may carry (a larger item goes alone). */
  readonly chunkLimits: { readonly items: number; readonly bytes: number };
  /** Throws {@link TargetNotEmptyError} when the store holds anything. */
  checkEmpty(): Promise<void>;
  begin(marker: CopyMarker): Promise<void>;
  writeChunk(items: readonly SnapshotItem[]): Promise<void>;
  /** What was written, read back. */
  items(): AsyncIterable<SnapshotItem>;
  finish(): Promise<void>;
  close(): Promise<void>;
}

/** The target of a copy already holds data: a copy goes only into an empty store. Nothing was written. */
export class TargetNotEmptyError extends NamedError {}

/** The source cannot be copied as it is (a running replica, a foreign key, an unreadable value, an unfinished copy). */
export class SnapshotSourceError extends NamedError {}
