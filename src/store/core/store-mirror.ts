import type { AutoRepairOutcome } from "../../domain/intake/auto-repair-outcome.js";
import type { ClusterGeneration } from "../../domain/cluster/generation-record.js";
import type { StoredMachineHold } from "../../domain/holds/machine-holds.js";
import { KEPT_FINISHED_REPAIRS } from "../../domain/queue/finished-repair.js";
import { MirroredFinished } from "./mirrored-finished.js";
import { MirroredRecords } from "./mirrored-records.js";
import type { RepairEntry } from "../../domain/queue/repair-entry.js";
import type { HoldChange, RepairChange, StoreCommit } from "../store-port.js";
import type { StoreKeys } from "./store-keys.js";
import type { KvEvent } from "../kv/kv-driver.js";
import type { Log } from "../../support/log.js";
import {
  settingValueOf,
  VALUE_SCHEMAS as SCHEMAS,
  type HoldsHeadValue,
  type QueueHeadValue,
  type SequenceHeadValue,
  type StoredGenerationFields,
} from "./value-schemas.js";
import { decodeValue, deepFreeze, generationFromStored, storedEntry, storedOutcome, storedRecord } from "./store-values.js";
import { decodeHistory, type DecodedHistory } from "./history-value.js";

/** A value with the revision that last wrote it. */
export interface Versioned<T> {
  readonly value: T;
  readonly modRevision: number;
}

/** A generation record as read, with the fields it was stored with (a repeat rewrites them). */
export interface MirroredGeneration {
  readonly fields: StoredGenerationFields;
  readonly record: ClusterGeneration;
}

/**
 * Everything of the store but the history and the replay records' values, as of one revision: what reads are served
 * from and writes decide on. It changes only by {@link applyRevision} (in revision order) or {@link load}.
 */
export class StoreMirror {
  revision = 0;
  /** The heads: null when absent; a null value when present but unreadable (see the log). */
  queueHead: Versioned<QueueHeadValue | null> | null = null;
  outcomesHead: Versioned<SequenceHeadValue | null> | null = null;
  generationsHead: Versioned<SequenceHeadValue | null> | null = null;
  holdsHead: Versioned<HoldsHeadValue | null> | null = null;
  recordsHead: Versioned<SequenceHeadValue | null> | null = null;
  records = new MirroredRecords();
  /** Whether indexes were ever handed out here: then a missing queue head must not restart them at 1. */
  queueStarted = false;
  readonly settings = new Map<string, Versioned<unknown>>();
  private readonly modRevisions = new Map<string, number>();
  private readonly entries = new Map<number, RepairEntry>();
  /** The kept outcomes' sequences (their values are read when asked: a storm's outcomes are large). */
  private readonly outcomeSequences = new Set<number>();
  private newestOutcome = 0;
  private readonly generations = new Map<number, MirroredGeneration>();
  private readonly holds = new Map<string, StoredMachineHold>();
  readonly finished: MirroredFinished;
  private sortedEntries: readonly RepairEntry[] | null = null;
  private sortedGenerations: readonly MirroredGeneration[] | null = null;
  private sortedHolds: readonly StoredMachineHold[] | null = null;

  constructor(
    private readonly keys: StoreKeys,
    private readonly log: Log,
    keepFinished = KEPT_FINISHED_REPAIRS,
  ) {
    this.finished = new MirroredFinished(keepFinished);
  }

  modRevision(key: string): number {
    return this.modRevisions.get(key) ?? 0;
  }

  entry(index: number): RepairEntry | null {
    return this.entries.get(index) ?? null;
  }

  entryList(): readonly RepairEntry[] {
    this.sortedEntries ??= Object.freeze([...this.entries.values()].sort((a, b) => a.index - b.index));
    return this.sortedEntries;
  }

  /** Without sorting the queue: every queue write asks. */
  highestIndex(): number {
    let highest = 0;
    for (const index of this.entries.keys()) if (index > highest) highest = index;
    return highest;
  }

  newestOutcomeSequence(): number {
    return this.newestOutcome;
  }

  outcomeCount(): number {
    return this.outcomeSequences.size;
  }

  generationList(): readonly MirroredGeneration[] {
    this.sortedGenerations ??= Object.freeze([...this.generations.values()].sort((a, b) => a.fields.sequence - b.fields.sequence));
    return this.sortedGenerations;
  }

  holdList(): readonly StoredMachineHold[] {
    this.sortedHolds ??= Object.freeze([...this.holds.values()].sort((a, b) => Buffer.compare(Buffer.from(a.address), Buffer.from(b.address))));
    return this.sortedHolds;
  }

  /** Replaces everything with the keys read at `revision` (the replay records as columns of their own). */
  load(kvs: readonly KvEvent[], revision: number, historyExists: boolean, records: MirroredRecords = new MirroredRecords()): void {
    this.queueHead = this.outcomesHead = this.generationsHead = this.holdsHead = this.recordsHead = null;
    this.records = records;
    for (const held of [this.holds, this.settings, this.modRevisions, this.entries, this.outcomeSequences, this.generations, this.finished]) held.clear();
    this.newestOutcome = 0;
    this.touched();
    for (const kv of kvs) this.apply(kv);
    this.queueStarted = historyExists || this.queueHead !== null || this.entries.size > 0;
    this.revision = revision;
  }

  /**
   * Applies one committed revision and describes what it changed (null: nothing readers see). Entry changes are
   * rebuilt from its history records, each applied to the entry before it (the previous record's, or the mirror's).
   */
  applyRevision(revision: number, events: readonly KvEvent[]): StoreCommit | null {
    const written: Array<{ decoded: DecodedHistory; key: string }> = [];
    let outcome: AutoRepairOutcome | null = null;
    let generation: ClusterGeneration | null = null;
    const settings: string[] = [];
    let holds: readonly HoldChange[] = [];
    for (const event of events) {
      const key = this.keys.parse(event.key);
      if (key.kind === "history" && event.type === "put") {
        const decoded = this.decodeWith(event, () => decodeHistory(event.key, key.index, key.sequence, event.value));
        if (decoded) written.push({ decoded, key: event.key });
      }
    }
    written.sort((a, b) => a.decoded.record.sequence - b.decoded.record.sequence);
    const after = new Map<number, RepairEntry>();
    const entries = written.flatMap(({ decoded, key }): RepairChange[] => {
      const record = storedRecord(decoded.record);
      const index = record.entryIndex;
      const previous = after.get(index) ?? this.entries.get(index) ?? null;
      const entry = decoded.entryAfter(previous);
      if (entry === null) {
        this.log.error("a history record tells a change of an entry this replica does not hold; it is left out of what subscribers see", { key, revision });
        return [];
      }
      after.set(index, entry);
      return [Object.freeze({ entry, previous, record })];
    });
    for (const event of events) {
      const key = this.keys.parse(event.key);
      this.apply(event);
      if (key.kind === "setting") settings.push(key.name);
      if (event.type !== "put") continue;
      if (key.kind === "outcome")
        outcome = this.decodeWith(event, () => storedOutcome(decodeValue(SCHEMAS.outcome, event.key, event.value).outcome)) ?? outcome;
      else if (key.kind === "generation") generation = this.generations.get(key.sequence)?.record ?? generation;
      else if (key.kind === "history" || key.kind === "entry") this.queueStarted = true;
      else if (key.kind === "holds-head") holds = this.holdsHead?.value?.changes ?? [];
    }
    this.revision = revision;
    if (entries.length === 0 && outcome === null && generation === null && settings.length === 0 && holds.length === 0) return null;
    const held = holds.length === 0 ? {} : { holds };
    return Object.freeze({ entries: Object.freeze(entries), outcome, generation, settings: Object.freeze(settings), ...held });
  }

  private apply(event: KvEvent): void {
    const key = this.keys.parse(event.key);
    const put = event.type === "put";
    if (key.kind !== "history" && key.kind !== "record" && key.kind !== "other") {
      if (put) this.modRevisions.set(event.key, event.modRevision);
      else this.modRevisions.delete(event.key);
    }
    /** A head or setting that cannot be read stays known as present (value null): writes refuse it, never guess. */
    const versioned = <T>(value: T | null): Versioned<T | null> => ({ value, modRevision: event.modRevision });
    switch (key.kind) {
      case "schema":
        // Read only to say loudly (through decode) when a newer kintsugi changed the layout under this one.
        if (put) this.decode(SCHEMAS.schema, event);
        return;
      case "queue":
        this.queueHead = put ? versioned(this.decode(SCHEMAS.queue, event)) : null;
        if (put) this.queueStarted = true;
        return;
      case "outcomes-head":
        this.outcomesHead = put ? versioned(this.decode(SCHEMAS["outcomes-head"], event)) : null;
        return;
      case "generations-head":
        this.generationsHead = put ? versioned(this.decode(SCHEMAS["generations-head"], event)) : null;
        return;
      case "holds-head":
        this.holdsHead = put ? versioned(deepFreeze(this.decode(SCHEMAS["holds-head"], event))) : null;
        return;
      case "records-head":
        this.recordsHead = put ? versioned(this.decode(SCHEMAS["records-head"], event)) : null;
        return;
      case "record":
        if (put) this.records.put(key.record);
        else this.records.delete(key.record.sequence);
        return;
      case "setting":
        if (put) this.settings.set(key.name, versioned(deepFreeze(this.decode(settingValueOf(key.name), event)?.value ?? null)));
        else this.settings.delete(key.name);
        return;
      case "entry": {
        const value = put ? this.decode(SCHEMAS.entry, event) : null;
        if (!put) this.entries.delete(key.index);
        else if (value && value.entry.index === key.index) this.entries.set(key.index, storedEntry(value.entry));
        else if (value)
          this.log.error("a repair entry's store key holds another index; the mirror leaves it out", { key: event.key, index: value.entry.index });
        break;
      }
      case "outcome":
        if (put) this.outcomeSequences.add(key.sequence);
        else this.outcomeSequences.delete(key.sequence);
        this.newestOutcome = put
          ? Math.max(this.newestOutcome, key.sequence)
          : this.newestOutcome === key.sequence
            ? Math.max(0, ...this.outcomeSequences)
            : this.newestOutcome;
        return;
      case "generation": {
        const value = put ? this.decode(SCHEMAS.generation, event) : null;
        if (!put) this.generations.delete(key.sequence);
        else if (value) this.generations.set(key.sequence, { fields: value.record, record: generationFromStored(value.record) });
        break;
      }
      case "hold": {
        const value = put ? this.decode(SCHEMAS.hold, event) : null;
        if (!put) this.holds.delete(key.address);
        else if (value && value.hold.address === key.address) this.holds.set(key.address, deepFreeze(value.hold));
        else if (value)
          this.log.error("a machine hold's store key holds another address; the mirror leaves it out", { key: event.key, address: value.hold.address });
        break;
      }
      case "finished": {
        const value = put ? this.decode(SCHEMAS.finished, event) : null;
        this.finished.delete(key.sequence);
        if (value && value.finished.sequence === key.sequence) this.finished.set(deepFreeze(value.finished), value.summary);
        else if (value)
          this.log.error("a finished repair's store key holds another sequence; the mirror leaves it out", {
            key: event.key,
            sequence: value.finished.sequence,
          });
        break;
      }
      case "history":
      case "other":
        return;
    }
    this.touched();
  }

  private touched(): void {
    this.sortedEntries = this.sortedGenerations = null;
    this.sortedHolds = null;
  }

  /** A value that cannot be read is left out (logged loudly), never guessed at; the key itself stays untouched. */
  private decode<S extends Parameters<typeof decodeValue>[0]>(schema: S, event: KvEvent): ReturnType<typeof decodeValue<S>> | null {
    return this.decodeWith(event, () => decodeValue(schema, event.key, event.value));
  }

  private decodeWith<T>(event: KvEvent, read: () => T): T | null {
    try {
      return read();
    } catch (err) {
      this.log.error("a stored value cannot be read; the mirror leaves it out", { key: event.key, revision: event.modRevision, error: (err as Error).message });
      return null;
    }
  }
}
