import { parseAddress } from "../shared/address.js";
import { findRepairOperation, type RepairConfig } from "./repair-config.js";
import {
  isFinished,
  REPAIR_STATUSES,
  REPAIR_STEP_STATUSES,
  truncateToSeconds,
  type RepairEntry,
  type RepairStatus,
  type RepairStepStatus,
  type UnindexedRepairEntry,
} from "./repair-entry.js";

/** The most entries one import takes (CKE's queue holds tens; the cap bounds the work a request can ask for). */
export const MAX_IMPORTED_ENTRIES = 10_000;
/** Problems listed at most in a refusal; the rest are counted. */
const SHOWN = 20;
// Go's zero time.Time, which ckecli prints for a time never set.
const GO_ZERO_TIME = Date.parse("0001-01-01T00:00:00Z");

/**
 * One entry of CKE's queue, as `ckecli repair-queue list` prints it (cke.RepairQueueEntry, repair.go): the fields a
 * kintsugi entry shares with CKE's, which are all of CKE's.
 */
export type CkeRepairEntry = Omit<RepairEntry, "createdAt" | "source" | "evidence">;

/** The `source` of an entry imported from CKE's entry `index`: what tells an import it was done already. */
export const ckeSource = (index: number): string => `cke:${index}`;

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === "object" && v !== null && !Array.isArray(v);

/** A Go time as JSON (RFC 3339), Go's zero time as null; undefined when it is not one. */
function goTime(value: unknown): number | null | undefined {
  if (typeof value !== "string" || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(value)) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  return ms === GO_ZERO_TIME ? null : ms;
}

function readEntry(raw: unknown, i: number, errors: string[]): CkeRepairEntry | null {
  const at = `entry ${i}`;
  if (!isObject(raw)) return (errors.push(`${at}: must be an object`), null);
  const before = errors.length;
  const index = typeof raw.index === "string" && /^\d{1,15}$/.test(raw.index) ? Number(raw.index) : NaN;
  if (Number.isNaN(index)) errors.push(`${at}: index must be a decimal string, as ckecli prints it`);
  const name = Number.isNaN(index) ? at : `CKE entry ${index}`;
  const address = typeof raw.address === "string" ? parseAddress(raw.address) : null;
  if (!address?.ok) errors.push(`${name}: address must be an IP address`);
  for (const key of ["machine_type", "operation"] as const)
    if (typeof raw[key] !== "string" || raw[key] === "") errors.push(`${name}: ${key} must be a non-empty string`);
  if (!REPAIR_STATUSES.includes(raw.status as RepairStatus)) errors.push(`${name}: status must be one of ${REPAIR_STATUSES.join(", ")}`);
  if (!REPAIR_STEP_STATUSES.includes(raw.step_status as RepairStepStatus))
    errors.push(`${name}: step_status must be one of ${REPAIR_STEP_STATUSES.join(", ")}`);
  if (!Number.isSafeInteger(raw.step) || (raw.step as number) < 0) errors.push(`${name}: step must be a whole number`);
  const backoff = raw.drain_backoff_count ?? 0;
  if (!Number.isSafeInteger(backoff) || (backoff as number) < 0) errors.push(`${name}: drain_backoff_count must be a whole number`);
  if (typeof raw.deleted !== "boolean") errors.push(`${name}: deleted must be true or false`);
  const transition = goTime(raw.last_transition_time);
  const expire = goTime(raw.drain_backoff_expire);
  if (transition === undefined) errors.push(`${name}: last_transition_time must be an RFC 3339 time`);
  if (expire === undefined) errors.push(`${name}: drain_backoff_expire must be an RFC 3339 time`);
  if (raw.serial !== undefined && typeof raw.serial !== "string") errors.push(`${name}: serial must be a string`);
  if (errors.length > before || !address?.ok) return null;
  return {
    index,
    address: address.address,
    nodename: typeof raw.nodename === "string" ? raw.nodename : "",
    serial: typeof raw.serial === "string" && raw.serial !== "" ? raw.serial : null,
    machineType: raw.machine_type as string,
    operation: raw.operation as string,
    status: raw.status as RepairStatus,
    step: raw.step as number,
    stepStatus: raw.step_status as RepairStepStatus,
    deleted: raw.deleted as boolean,
    lastTransitionTime: transition as number | null,
    drainBackoffCount: backoff as number,
    drainBackoffExpire: expire as number | null,
  };
}

const capped = (errors: readonly string[]) => (errors.length > SHOWN ? [...errors.slice(0, SHOWN), `and ${errors.length - SHOWN} more`] : [...errors]);

/**
 * Reads `ckecli repair-queue list`'s output (repair_queue_list.go: a JSON array of cke.RepairQueueEntry, `null` for an
 * empty queue): `index` a decimal string, statuses in lower case, times in RFC 3339 with Go's zero time for one
 * never set. Every problem is named by the entry's index; at most {@link MAX_IMPORTED_ENTRIES} entries.
 */
export function parseCkeQueue(
  text: string,
): { readonly ok: true; readonly entries: readonly CkeRepairEntry[] } | { readonly ok: false; readonly errors: readonly string[] } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, errors: [`not JSON (ckecli repair-queue list prints JSON): ${(e as Error).message}`] };
  }
  if (data === null) return { ok: true, entries: [] };
  if (!Array.isArray(data)) return { ok: false, errors: ["must be a JSON array of repair entries (or null), as ckecli repair-queue list prints"] };
  if (data.length > MAX_IMPORTED_ENTRIES) return { ok: false, errors: [`${data.length} entries: at most ${MAX_IMPORTED_ENTRIES} are imported at once`] };
  const errors: string[] = [];
  const entries = data.flatMap((raw, i) => readEntry(raw, i, errors) ?? []);
  const seen = new Set<number>();
  for (const e of entries) {
    if (seen.has(e.index)) errors.push(`CKE entry ${e.index}: listed twice`);
    seen.add(e.index);
  }
  return errors.length > 0 ? { ok: false, errors: capped(errors) } : { ok: true, entries };
}

/** What an import finds: the entries to add (in CKE's order), and the CKE entries already imported. */
export type QueueImport =
  | { readonly ok: true; readonly add: readonly UnindexedRepairEntry[]; readonly imported: readonly number[] }
  | { readonly ok: false; readonly errors: readonly string[] };

/** What an import is judged against. */
export interface QueueImportState {
  readonly repair: RepairConfig;
  /** kintsugi's repair queue is processed now. */
  readonly queueEnabled: boolean;
  readonly entries: readonly RepairEntry[];
  /** The sources of the repairs that ended and are still remembered (finished records). */
  readonly finishedSources: ReadonlySet<string>;
}

/**
 * Takes CKE's repair queue over: every entry of it, finished or not, becomes a kintsugi entry in the same status, step,
 * step status, deletion mark, last transition and drain back-off (source `cke:INDEX`), so kintsugi goes on where CKE
 * stopped: a step CKE ran is not run again, a machine with an entry (finished or not) is not enqueued again by
 * sabakan's poll (CKE's recently-repaired rule, sabakan/repairer.go), and the entries count against
 * maximum-repair-queue-entries as CKE's do. Refused, adding nothing, while kintsugi's repair queue is enabled (the
 * queue changes hands only while neither side works on it); when an unfinished entry's machine type and operation are
 * not in kintsugi's repair config, or its step is past the operation's steps; or when a machine has an unfinished entry
 * on both sides. A CKE entry imported before (its source in the queue or a finished record) is left out and listed in
 * `imported`, so an import can be repeated. An imported entry carries no proof of repair: its repair ran under CKE.
 */
export function planQueueImport(cke: readonly CkeRepairEntry[], state: QueueImportState, now: number): QueueImport {
  const errors: string[] = [];
  if (state.queueEnabled)
    errors.push(
      "kintsugi's repair queue is enabled: disable it first (kintsugi repair-queue disable), so neither side works on an entry while it changes hands",
    );
  const known = new Set([...state.entries.map((e) => e.source), ...state.finishedSources]);
  const unfinishedHere = new Map(state.entries.filter((e) => !isFinished(e)).map((e) => [e.address, e.index]));
  const fresh = cke.filter((e) => !known.has(ckeSource(e.index)));
  for (const e of fresh.filter((x) => !isFinished(x))) {
    const found = findRepairOperation(state.repair, e.machineType, e.operation);
    if (!found.ok) errors.push(`CKE entry ${e.index} (${e.address}): ${found.message} in kintsugi's repair config: add it (as in CKE's cluster.yml) first`);
    else if (e.step >= found.operation.repairSteps.length) {
      errors.push(
        `CKE entry ${e.index} (${e.address}): step ${e.step} is past the ${found.operation.repairSteps.length} steps of operation ${JSON.stringify(e.operation)} in kintsugi's repair config`,
      );
    }
    const here = unfinishedHere.get(e.address);
    if (here !== undefined) errors.push(`CKE entry ${e.index} (${e.address}): kintsugi's entry ${here} repairs the machine already; delete one of them first`);
  }
  if (errors.length > 0) return { ok: false, errors: capped(errors) };
  const add = fresh.map(({ index, lastTransitionTime, ...shared }): UnindexedRepairEntry => ({
    ...shared,
    lastTransitionTime: lastTransitionTime === null ? null : truncateToSeconds(lastTransitionTime),
    createdAt: now,
    source: ckeSource(index),
  }));
  return { ok: true, add, imported: cke.filter((e) => known.has(ckeSource(e.index))).map((e) => e.index) };
}
