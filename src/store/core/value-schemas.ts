import { z } from "../../support/zod.js";
import { parseAddress } from "../../domain/shared/address.js";
import { CONSTRAINT_MINIMUMS, CONSTRAINT_NAMES } from "../../domain/shared/constraints.js";
import { checkMachineParams, MACHINE_STATES } from "../../domain/sabakan/machine-params.js";
import { MAX_VARIABLES_TEXT_BYTES } from "../../domain/sabakan/cke-query-variables.js";
import { MAX_HOLD_REASON_LENGTH } from "../../domain/holds/machine-holds.js";
import type { PollTrigger } from "../../domain/intake/auto-repair-outcome.js";
import { GENERATION_TRIGGERS } from "../../domain/cluster/generation-record.js";
import { WORKER_SELECTIONS } from "../../domain/cluster/worker-selection.js";
import { FAILURE_REASON_CHARS, FINISHED_REPAIR_STATUSES } from "../../domain/queue/finished-repair.js";
import { MAX_PUBLISHED_WAITS, MAX_WAIT_MESSAGE_CHARS } from "../../domain/queue/published-waits.js";
import { WAIT_KINDS } from "../../domain/queue/repair-wait.js";
import { REPAIR_STATUSES, REPAIR_STEP_STATUSES } from "../../domain/queue/repair-entry.js";
import { MAX_BOOT_ID_CHARS, PROOF_SIGNALS } from "../../domain/proof/repair-evidence.js";
import type { RepairHistoryKind } from "../../domain/queue/repair-history.js";
import { SKIP_KINDS, skippedFromStored } from "../../domain/intake/skip-kinds.js";
import { countsMatchList } from "../../domain/intake/skipped-bound.js";
import type { ParsedKey } from "./store-keys.js";

/**
 * The shapes of the JSON values kintsugi keeps on both drivers, checked on read (other programs can write the store);
 * unknown fields are dropped. Every value carries `v`, the format version that wrote it.
 */

const count = z.number().int().min(0);
const time = z.number().finite();
const id = z.number().int().min(1);
/** Where a repair stands: an entry's, and a history record's after its change. */
const repairState = { status: z.enum(REPAIR_STATUSES), step: count, stepStatus: z.enum(REPAIR_STEP_STATUSES), deleted: z.boolean() };
const historyKinds = ["created", "transition", "delete-requested", "dequeued", "backoff-reset", "note"] as const satisfies readonly RepairHistoryKind[];
// A boot ID is a UUID on Linux; the domain keeps no longer one (see usableBootId), so a longer one was not written by kintsugi.
const bootId = z.string().max(MAX_BOOT_ID_CHARS).nullable();

/** An entry's proof of repair as stored, checked before it is trusted (other programs can write a store). */
export const repairEvidenceSchema = z.strictObject({
  step: z.number().int().min(0),
  bootIdBefore: bootId,
  bootIdAfter: bootId,
  since: z.strictObject(
    Object.fromEntries(["health_check", ...PROOF_SIGNALS].map((s) => [s, time.optional()])) as Record<
      "health_check" | (typeof PROOF_SIGNALS)[number],
      z.ZodOptional<typeof time>
    >,
  ),
  dwellStartedAt: time.nullable(),
  dwellStarts: z.number().int().min(0),
  provenAt: time.nullable(),
});

export const repairEntrySchema = z.object({
  index: id,
  address: z.string(),
  nodename: z.string(),
  serial: z.string().nullable(),
  machineType: z.string(),
  operation: z.string(),
  ...repairState,
  lastTransitionTime: time.nullable(),
  drainBackoffCount: count,
  drainBackoffExpire: time.nullable(),
  createdAt: time,
  source: z.string(),
  evidence: repairEvidenceSchema.optional(),
  command: z
    .object({
      command: z.enum(["repair", "diagnostics", "success"]),
      operationId: z.string().max(256).nullable(),
      replica: z.string().max(1024),
      run: z.string().max(256),
      startedAt: time.nullable(),
      timeoutSeconds: z.number().min(0).finite(),
    })
    .optional(),
});

export const historyRecordSchema = z.object({
  sequence: id,
  entryIndex: id,
  time,
  kind: z.enum(historyKinds),
  reason: z.string(),
  detail: z.string().nullable(),
  ...repairState,
  actor: z.string(),
  replica: z.string().max(1024).optional(),
});

const versioned = { v: z.number().int().min(1) };

/** Who committed a head or setting: a fresh id per attempt, so a retried transaction can tell it already landed. */
const writeId = { w: z.string() };

const schemaValue = z.object(versioned);

const queueHeadValue = z.object({ ...versioned, ...writeId, nextIndex: id, nextSequence: id });

const sequenceHeadValue = z.object({ ...versioned, ...writeId, next: id });

/**
 * A queued entry's address is the last argument of its repair commands: a value another process wrote must not be an
 * option (`-rf`); a finished repair's is matched against machines' to count their repairs. Older canonical spellings
 * (`::ffff:a00:1`) are still addresses, so values stored before stay readable. (The entry a history value carries only
 * describes a change; a copied record of a dequeued entry has none.)
 */
const addressText = z.string().refine((text) => text === text.trim() && parseAddress(text).ok, { message: "must be an IP address" });

const queuedEntry = repairEntrySchema.extend({ address: addressText });

export const entryValue = z.object({ ...versioned, entry: queuedEntry });

/** A format-1 history value: the record and the entry after the change (before it, for `dequeued`). */
export const historyValue = z.object({ ...versioned, record: historyRecordSchema, entry: repairEntrySchema });

const settingValue = z.object({ ...versioned, ...writeId, value: z.unknown() });

const machineParams = z
  .object({
    labels: z.array(z.object({ name: z.string(), value: z.string() })).nullish(),
    racks: z.array(z.number()).nullish(),
    roles: z.array(z.string()).nullish(),
    states: z.array(z.enum(MACHINE_STATES)).nullish(),
    minDaysBeforeRetire: z.number().int().nullish(),
  })
  .nullable()
  .superRefine((params, ctx) => {
    const checked = checkMachineParams(params, "params");
    if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.message });
  });

const switchValue = z.boolean();
const waitIndex = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const waitText = z.string().max(MAX_WAIT_MESSAGE_CHARS);

/** The setting `repair-waits`: served to clients as another replica wrote it, so a value of the wrong shape is refused whole. */
export const publishedWaitsSchema = z
  .array(
    z
      .object({
        index: waitIndex,
        kind: z.enum(WAIT_KINDS),
        message: waitText,
        until: z.number().int().min(0).max(8.64e15).nullable(),
        domain: waitText.nullable(),
        entryIndex: waitIndex.optional(),
      })
      .strict(),
  )
  .max(MAX_PUBLISHED_WAITS);
const variablesValue = z.object({ having: machineParams, notHaving: machineParams, text: z.string().max(MAX_VARIABLES_TEXT_BYTES).optional() });

/**
 * The shape of each setting kintsugi reads: the safety limits and switches decide what is repaired, so a value of
 * the wrong type is left out (the default applies) rather than coerced (a string "false" is truthy).
 */
const SETTING_VALUES: Readonly<Record<string, z.ZodType>> = {
  "repair-queue-enabled": switchValue,
  "auto-repair-enabled": switchValue,
  "cluster-generation-enabled": switchValue,
  "auto-repair-variables": variablesValue,
  "cluster-variables": variablesValue,
  "cluster-template": z.object({ text: z.string(), setAt: time }),
  "repair-waits": publishedWaitsSchema,
  "escalation-releases": z.record(z.string(), time),
  constraints: z.object(
    Object.fromEntries(
      Object.values(CONSTRAINT_NAMES).map((name) => [
        name,
        z
          .number()
          .int()
          .min(CONSTRAINT_MINIMUMS[name]?.min ?? Number.MIN_SAFE_INTEGER)
          .max(Number.MAX_SAFE_INTEGER)
          .optional(),
      ]),
    ),
  ),
};

/** The value schema of the setting `name`; a setting kintsugi does not read is taken as it is. */
export function settingValueOf(name: string): z.ZodType<z.infer<typeof settingValue>> {
  const value = name.startsWith("health-check-paused:") ? switchValue : SETTING_VALUES[name];
  return value === undefined ? settingValue : z.object({ ...versioned, ...writeId, value });
}

/** A skipped machine; values written before kintsugi kept kinds and racks lack them (the kind is read from the reason). */
const skippedMachine = z
  .object({
    serial: z.string(),
    address: z.string().nullable(),
    state: z.string(),
    reason: z.string(),
    kind: z.enum(SKIP_KINDS).optional(),
    rack: count.nullable().optional(),
  })
  .transform(skippedFromStored);

/** Absent in values written before the skipped list was bounded. */
const skippedCounts = z.object({
  total: count,
  byKind: z.array(z.object({ kind: z.enum(SKIP_KINDS), machines: count })).max(SKIP_KINDS.length),
});

export const outcomeValue = z.object({
  ...versioned,
  outcome: z
    .object({
      sequence: id,
      time,
      trigger: z.enum(["schedule", "operator", "event"] as const satisfies readonly PollTrigger[]),
      machinesSeen: count,
      enqueued: z.array(repairEntrySchema),
      skipped: z.array(skippedMachine),
      skippedCounts: skippedCounts.optional(),
      shortCircuit: z.object({ existingEntries: count, candidates: count, limit: count }).nullable(),
      error: z.string().nullable(),
    })
    .superRefine((o, ctx) => {
      const wrong = o.skippedCounts && countsMatchList(o.skippedCounts, o.skipped);
      if (wrong) ctx.addIssue({ code: "custom", path: ["skippedCounts"], message: wrong });
    }),
});

export const generationValue = z.object({
  ...versioned,
  record: z.object({
    sequence: id,
    time,
    lastTime: time,
    repeats: id,
    trigger: z.enum(GENERATION_TRIGGERS),
    /** Absent in records written before records named their policy: weighted. */
    policy: z.enum(WORKER_SELECTIONS).optional(),
    generation: count,
    /** The configuration as gzip'd JSON in base64: 8,000 nodes are about 260 kB gzip'd. */
    cluster: z.base64().nullable(),
    changes: z.array(z.string()),
    error: z.string().nullable(),
    /** When the template the configuration was made from was set; absent in older records and for failures. */
    templateSetAt: time.optional(),
  }),
});

function isCanonicalAddress(text: string): boolean {
  const parsed = parseAddress(text);
  return parsed.ok && parsed.address === text;
}

/** A machine hold as stored: its address canonical (it names the key, and repairs match it), its reason bounded. */
export const storedHoldSchema = z.object({
  address: z.string().refine(isCanonicalAddress, { message: "must be an IP address in canonical form" }),
  reason: z.string().min(1).max(MAX_HOLD_REASON_LENGTH),
  setBy: z.string(),
  setAt: time,
  until: time.nullable(),
});

const holdValue = z.object({ ...versioned, hold: storedHoldSchema });

/** The holds head: the last hold write's changes, which the watch announces (deletes carry no value). */
const holdsHeadValue = z.object({
  ...versioned,
  ...writeId,
  changes: z.array(z.object({ kind: z.enum(["set", "released", "expired"]), hold: storedHoldSchema, actor: z.string() })),
});
export const finishedRepairSchema = z.object({
  sequence: id,
  entryIndex: id,
  address: addressText,
  machineType: z.string(),
  operation: z.string(),
  source: z.string(),
  createdAt: time,
  finishedAt: time,
  status: z.enum(FINISHED_REPAIR_STATUSES),
  proof: z.enum(["proven", "unproven"]).nullable(),
  reason: z.string().max(FAILURE_REASON_CHARS).optional(),
});

const historySummarySchema = z.object({ drainingMs: count, stepsNeeded: count, finalStep: count.nullable() });

/** A finished-repair record, with the summary of its history once stored (null: the repair has no history). */
const finishedValue = z.object({ ...versioned, finished: finishedRepairSchema, summary: historySummarySchema.nullable().optional() });

/** A replay record: its deflated JSON in base64, checked whole (inflated with a bound) where it is read. */
export const recordValue = z.object({
  ...versioned,
  body: z
    .string()
    .max(1024 * 1024)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, "must be base64"),
});

/**
 * The value schema of each kind of store key read as a whole value (a setting's is its name's; history and replay
 * records have decoders of their own): what the mirror, a copy and the conversion check a value against.
 */
export const VALUE_SCHEMAS = {
  schema: schemaValue,
  queue: queueHeadValue,
  "outcomes-head": sequenceHeadValue,
  "generations-head": sequenceHeadValue,
  "records-head": sequenceHeadValue,
  "holds-head": holdsHeadValue,
  entry: entryValue,
  outcome: outcomeValue,
  generation: generationValue,
  hold: holdValue,
  finished: finishedValue,
} as const satisfies Partial<Record<ParsedKey["kind"], z.ZodType>>;

/** The schema of the value at `key`, or null for a key not read as a whole value. */
export function valueSchemaOf(key: ParsedKey): z.ZodType | null {
  if (key.kind === "setting") return settingValueOf(key.name);
  return key.kind in VALUE_SCHEMAS ? VALUE_SCHEMAS[key.kind as keyof typeof VALUE_SCHEMAS] : null;
}

export type QueueHeadValue = z.infer<typeof queueHeadValue>;
export type SequenceHeadValue = z.infer<typeof sequenceHeadValue>;
export type HoldsHeadValue = z.infer<typeof holdsHeadValue>;
export type StoredGenerationFields = z.infer<typeof generationValue>["record"];
