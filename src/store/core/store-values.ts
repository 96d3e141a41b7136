import { readWorkerSelection } from "../../domain/cluster/worker-selection.js";
import { gunzipSync, gzipSync } from "node:zlib";
import type { z } from "../../support/zod.js";
import type { AutoRepairOutcome } from "../../domain/intake/auto-repair-outcome.js";
import type { ClusterGeneration } from "../../domain/cluster/generation-record.js";
import type { GeneratedCluster } from "../../domain/cluster/types.js";
import type { RepairEntry } from "../../domain/queue/repair-entry.js";
import { canonicalEvidence } from "../../domain/proof/repair-evidence.js";
import type { RepairHistoryRecord } from "../../domain/queue/repair-history.js";
import { repairEntrySchema, type StoredGenerationFields } from "./value-schemas.js";
import type { Log } from "../../support/log.js";
import { NamedError } from "../store-errors.js";

/**
 * The version of the key layout and value formats this code writes and understands; an older kintsugi refuses a
 * store whose `schema` key is newer. 2: history values hold what changed, which a version-1 kintsugi cannot read.
 */
export const STORE_SCHEMA_VERSION = 2;

/** Values whose format did not change stay stamped 1: a version-1 replica still running in a rolling upgrade reads them. */
const FIRST_VALUE_FORMAT = 1;

/** A stored value this kintsugi cannot read: not JSON, a newer format, or not the expected shape. */
export class UndecodableValueError extends NamedError {}

/** Freezes a value and everything reachable from it: the mirror hands the same objects to every reader. */
export function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Parses and checks the value stored at `key`; {@link UndecodableValueError} naming the key and the fault. */
export function decodeValue<S extends z.ZodType>(schema: S, key: string, raw: Buffer): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(raw.toString("utf8"));
  } catch (err) {
    throw new UndecodableValueError(`store key ${key} does not hold JSON: ${(err as Error).message}`);
  }
  const v = typeof json === "object" && json !== null ? (json as { v?: unknown }).v : undefined;
  if (typeof v === "number" && v > STORE_SCHEMA_VERSION) {
    throw new UndecodableValueError(`store key ${key} has format version ${v}, newer than this kintsugi knows (${STORE_SCHEMA_VERSION}); upgrade kintsugi`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join(".")}` : "";
    throw new UndecodableValueError(`store key ${key} holds an invalid value${where}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}

/** What `read` returns, or null when the value cannot be read: logged as `message`, left out, never guessed at. */
export function readOrLog<T>(log: Log, message: string, key: string, read: () => T): T | null {
  try {
    return read();
  } catch (err) {
    if (!(err instanceof UndecodableValueError)) throw err;
    log.error(message, { key, error: err.message });
    return null;
  }
}

export function encodeValue(value: object, format: number = FIRST_VALUE_FORMAT): string {
  // JSON would write NaN and Infinity as null, which the read schemas then refuse: the write would land a value that
  // cannot be read back. Refused here, the whole write fails and nothing lands.
  return JSON.stringify({ v: format, ...value }, (field: string, v: unknown) => {
    if (typeof v === "number" && !Number.isFinite(v)) throw new Error(`cannot store ${field || "a value"} = ${v}: not a finite number; nothing was written`);
    return v;
  });
}

/** The fields an entry is stored with, in the order written: the schema's, so a field added there is kept here. */
const { evidence: _evidence, command: _command, ...plainFields } = repairEntrySchema.shape;
const ENTRY_FIELDS = Object.keys(plainFields) as ReadonlyArray<keyof RepairEntry>;
const COMMAND_FIELDS = Object.keys(repairEntrySchema.shape.command.unwrap().shape) as ReadonlyArray<keyof NonNullable<RepairEntry["command"]>>;

/** An entry with exactly the fields of {@link RepairEntry} (callers may pass objects carrying more). */
export function storedEntry(e: RepairEntry): RepairEntry {
  const stored: Record<string, unknown> = {};
  for (const field of ENTRY_FIELDS) stored[field] = e[field];
  if (e.evidence !== undefined) stored.evidence = canonicalEvidence(e.evidence);
  if (e.command !== undefined) {
    const command: Record<string, unknown> = {};
    for (const field of COMMAND_FIELDS) command[field] = e.command[field];
    stored.command = command;
  }
  return deepFreeze(stored as unknown as RepairEntry);
}

export function storedRecord(r: RepairHistoryRecord): RepairHistoryRecord {
  // Object.assign, not a spread: V8 gives every frozen spread copy a hidden class of its own.
  return deepFreeze(Object.assign({}, r));
}

export function storedOutcome(o: AutoRepairOutcome): AutoRepairOutcome {
  return deepFreeze({
    sequence: o.sequence,
    time: o.time,
    trigger: o.trigger,
    machinesSeen: o.machinesSeen,
    enqueued: o.enqueued.map(storedEntry),
    skipped: o.skipped.map((s) => ({ serial: s.serial, address: s.address, state: s.state, reason: s.reason, kind: s.kind, rack: s.rack })),
    ...(o.skippedCounts && {
      skippedCounts: { total: o.skippedCounts.total, byKind: o.skippedCounts.byKind.map((c) => ({ kind: c.kind, machines: c.machines })) },
    }),
    shortCircuit: o.shortCircuit === null ? null : { ...o.shortCircuit },
    error: o.error,
  });
}

function parseCluster(json: string, sequence: number): GeneratedCluster {
  let cluster: unknown;
  try {
    cluster = JSON.parse(json);
  } catch (err) {
    throw new UndecodableValueError(`the configuration of generation record ${sequence} is not JSON: ${(err as Error).message}`);
  }
  if (typeof cluster !== "object" || cluster === null || !Array.isArray((cluster as { nodes?: unknown }).nodes)) {
    throw new UndecodableValueError(`the configuration of generation record ${sequence} is not a cluster configuration (no nodes list)`);
  }
  return cluster as GeneratedCluster;
}

export function encodeCluster(cluster: GeneratedCluster): string {
  return gzipSync(JSON.stringify(cluster)).toString("base64");
}

/** Far above any fleet's configuration (10,000 nodes are about 10 MB), far below what a gzip bomb would expand to. */
export const MAX_CLUSTER_JSON_BYTES = 64 * 1024 * 1024;

/** The JSON text of a stored configuration; {@link UndecodableValueError} naming `what` when it cannot be decompressed. */
export function gunzipCluster(base64: string, what: string): string {
  try {
    return gunzipSync(Buffer.from(base64, "base64"), { maxOutputLength: MAX_CLUSTER_JSON_BYTES }).toString("utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === "ERR_BUFFER_TOO_LARGE" ? `it decompresses to more than ${MAX_CLUSTER_JSON_BYTES} bytes` : (err as Error).message;
    throw new UndecodableValueError(`the configuration of ${what} cannot be decompressed: ${why}`);
  }
}

/**
 * A generation record read from its stored fields; the configuration is decompressed on first use (listing the
 * history costs none), throwing {@link UndecodableValueError} there when it cannot be read.
 */
export function generationFromStored(fields: StoredGenerationFields): ClusterGeneration {
  const blob = fields.cluster;
  let cluster: GeneratedCluster | null | undefined = blob === null ? null : undefined;
  return Object.freeze({
    sequence: fields.sequence,
    outcome: blob !== null ? ("generated" as const) : fields.error !== null ? ("failed" as const) : ("recovered" as const),
    time: fields.time,
    lastTime: fields.lastTime,
    repeats: fields.repeats,
    trigger: fields.trigger,
    policy: readWorkerSelection(fields.policy),
    generation: fields.generation,
    get cluster(): GeneratedCluster | null {
      if (cluster === undefined) cluster = deepFreeze(parseCluster(gunzipCluster(blob as string, `generation record ${fields.sequence}`), fields.sequence));
      return cluster;
    },
    changes: Object.freeze([...fields.changes]),
    error: fields.error,
    ...(fields.templateSetAt !== undefined && { templateSetAt: fields.templateSetAt }),
  });
}
