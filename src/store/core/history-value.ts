import { z } from "../../support/zod.js";
import type { RepairEntry } from "../../domain/queue/repair-entry.js";
import type { RepairHistoryKind, RepairHistoryRecord } from "../../domain/queue/repair-history.js";
import { decodeValue, encodeValue, storedEntry } from "./store-values.js";
import { historyRecordSchema, historyValue, repairEntrySchema } from "./value-schemas.js";

/**
 * A history value's format: what changed, not a copy of the entry (a data center keeps a million of these, hence the
 * short names). Sequence and entry index are the key's; status, step, step status and deleted the record's own; `c`
 * holds the other entry fields the change set (a `created` record's: all), so a replica watching the write rebuilds
 * the entry from the one before; `l` says the entry's transition time became the record's. Format 1 (the record and
 * the whole entry) is still read.
 */
const HISTORY_VALUE_FORMAT = 2;

/** The fields of an entry a history value's `c` may carry (null for an optional one: the change removed it). */
const entryFields = repairEntrySchema.shape;
const entryChange = repairEntrySchema
  .omit({ index: true, status: true, step: true, stepStatus: true, deleted: true })
  .partial()
  .extend({ evidence: entryFields.evidence.unwrap().nullable().optional(), command: entryFields.command.unwrap().nullable().optional() });
type EntryChange = z.infer<typeof entryChange>;
const CHANGE_FIELDS = Object.keys(entryChange.shape) as Array<keyof EntryChange>;
const OPTIONAL_FIELDS = new Set<string>(["evidence", "command"]);

const recordFields = historyRecordSchema.shape;
const compactHistoryValue = z.object({
  v: z.literal(HISTORY_VALUE_FORMAT),
  t: recordFields.time,
  k: recordFields.kind,
  r: recordFields.reason,
  d: z.string().optional(),
  s: recordFields.status,
  n: recordFields.step,
  ss: recordFields.stepStatus,
  x: z.literal(true).optional(),
  a: recordFields.actor,
  p: recordFields.replica,
  l: z.literal(1).optional(),
  c: entryChange.optional(),
});

/** A history value as read: the record, and the entry after its change given the one before (null: not told). */
export interface DecodedHistory {
  readonly record: RepairHistoryRecord;
  entryAfter(before: RepairEntry | null): RepairEntry | null;
}

const same = (a: unknown, b: unknown) => a === b || (typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b));

/** The stored text of `record`, whose change took `before` to `after` (null: a copied record tells no entry). */
export function encodeHistory(record: RepairHistoryRecord, before: RepairEntry | null, after: RepairEntry | null): string {
  const change: Record<string, unknown> = {};
  if (after !== null) {
    for (const field of CHANGE_FIELDS) {
      const was = before === null ? undefined : before[field];
      const is = after[field];
      if (before !== null && same(was, is)) continue;
      if (is === undefined) {
        if (before !== null && OPTIONAL_FIELDS.has(field)) change[field] = null;
      } else change[field] = is;
    }
  }
  // The runner's transitions set the entry's transition time to the record's: a flag, not the number again.
  const stamped = change["lastTransitionTime"] === record.time;
  if (stamped) delete change["lastTransitionTime"];
  return encodeValue(
    {
      t: record.time,
      k: record.kind,
      r: record.reason,
      ...(record.detail !== null && { d: record.detail }),
      s: record.status,
      n: record.step,
      ss: record.stepStatus,
      ...(record.deleted && { x: true }),
      a: record.actor,
      ...(record.replica !== undefined && { p: record.replica }),
      ...(stamped && { l: 1 }),
      ...(Object.keys(change).length > 0 && { c: change }),
    },
    HISTORY_VALUE_FORMAT,
  );
}

function applyChange(record: RepairHistoryRecord, before: RepairEntry | null, change: EntryChange | undefined): RepairEntry | null {
  const merged: Record<string, unknown> = { ...before };
  for (const [field, value] of Object.entries(change ?? {})) {
    if (value === null && OPTIONAL_FIELDS.has(field)) delete merged[field];
    else if (value !== undefined) merged[field] = value;
  }
  const entry = { ...merged, index: record.entryIndex, status: record.status, step: record.step, stepStatus: record.stepStatus, deleted: record.deleted };
  // A `created` record carries every field; without an entry before, any other cannot be rebuilt.
  return repairEntrySchema.safeParse(entry).success ? storedEntry(entry as RepairEntry) : null;
}

/** Reads the history value at `key` (entry `index`, record `sequence`) in either format; UndecodableValueError otherwise. */
export function decodeHistory(key: string, index: number, sequence: number, raw: Buffer): DecodedHistory {
  // A value another program wrote as TEXT reaches here as a string, which toString gives whole.
  const head = raw.toString("latin1", 0, 8);
  if (head.startsWith(`{"v":${HISTORY_VALUE_FORMAT},`)) {
    const value = decodeValue(compactHistoryValue, key, raw);
    const record: RepairHistoryRecord = {
      sequence,
      entryIndex: index,
      time: value.t,
      kind: value.k as RepairHistoryKind,
      reason: value.r,
      detail: value.d ?? null,
      status: value.s,
      step: value.n,
      stepStatus: value.ss,
      deleted: value.x === true,
      actor: value.a,
      ...(value.p !== undefined && { replica: value.p }),
    };
    const change = value.l === 1 ? { ...value.c, lastTransitionTime: value.t } : value.c;
    return { record, entryAfter: (before) => applyChange(record, before, change) };
  }
  // A format-1 record names its index and sequence itself (a copy checks them against the key).
  const { record, entry } = decodeValue(historyValue, key, raw);
  return { record, entryAfter: () => storedEntry(entry) };
}
