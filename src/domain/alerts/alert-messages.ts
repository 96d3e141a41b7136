import { formatDuration, type Alert, type AlertKind, type AlertSeverity } from "./alert.js";

type Status = "QUEUED" | "PROCESSING" | "SUCCEEDED" | "FAILED";
type StepStatus = "WAITING" | "DRAINING" | "WATCHING";
type Kind = "CREATED" | "TRANSITION" | "DELETE_REQUESTED" | "DEQUEUED" | "BACKOFF_RESET" | "NOTE";

/** A `repairEntryEvents` payload as the API sends it (enums upper-case, times RFC 3339). */
export interface RepairEntryEventPayload {
  readonly kind: Kind;
  readonly entry: {
    readonly index: string;
    readonly address: string;
    readonly nodename: string;
    readonly serial: string | null;
    readonly machineType: string;
    readonly operation: string;
    readonly status: Status;
    readonly step: number;
    readonly stepStatus: StepStatus;
    readonly drainBackoffCount: number;
    readonly drainBackoffExpire: string | null;
    readonly source: string;
  };
  /** The entry just before the change, with the fields the rules read; null for CREATED. */
  readonly previous: { readonly status: Status; readonly step: number; readonly stepStatus: StepStatus } | null;
  /** `actor` names who made the change: a token's name, `kintsugi` (the runner), `sabakan`, `health-check:NAME`. */
  readonly record: { readonly time: string; readonly reason: string; readonly detail: string | null; readonly actor: string };
}

const DETAIL_CHARS = 600;

/**
 * The alert for one repair entry event, or null. `requestedBy` is who created the entry (the actor of its CREATED
 * record) when the caller knows it: the runner's alerts name it when it says more than the entry's source (a
 * token's name where the source is `operator`). Creations, notes and dequeues never alert (a creation's repair
 * start follows and names its source; the history names who added it).
 * Operator actions alert naming who did them (the record's actor):
 * - a deletion requested while the entry was unfinished: "entry 42 for 10.0.0.3 deleted by ci-bot" (warning: a
 *   repair is stopped). Deleting a finished entry is housekeeping (done in bulk) and stays quiet;
 * - a drain back-off reset: "drain back-off of entry 42 for 10.0.0.3 reset by ci-bot" (info).
 * TRANSITIONs (the runner's):
 * - status SUCCEEDED: "repair succeeded" (info); FAILED: "repair failed" (critical) with the reason and detail;
 * - from DRAINING to PROCESSING/WAITING with a back-off expiry (a drain failed, timed out or was abandoned):
 *   "drain backed off" (warning) with the count and the retry time;
 * - a step starting, from WAITING: to PROCESSING/DRAINING with a back-off count of 0 (a drain's first attempt;
 *   retries after a back-off stay quiet), or to PROCESSING/WATCHING (a step without a drain). WATCHING after a
 *   drain completed is routine: its start was announced with the drain.
 * The rules read the states before and after, never the reason's wording. Every alert may be grouped with its
 * likes (same kind, same actor for operator actions), one subject per machine.
 */
export function alertFor(event: RepairEntryEventPayload, requestedBy: string | null = null): Alert | null {
  if (event.kind === "DELETE_REQUESTED" || event.kind === "BACKOFF_RESET") return operatorAlert(event);
  if (event.kind !== "TRANSITION") return null;
  const { entry, record } = event;
  const by: Record<string, string> = requestedBy !== null && requestedBy !== entry.source ? { "requested by": requestedBy } : {};
  if (entry.status === "SUCCEEDED")
    return runnerAlert({ kind: "succeeded", severity: "info", what: "repair succeeded", plural: "repairs succeeded" }, event, by);
  if (entry.status === "FAILED") {
    return runnerAlert(
      { kind: "failed", severity: "critical", what: "repair failed", plural: "repairs failed" },
      event,
      record.detail ? { ...by, detail: clip(record.detail) } : by,
    );
  }
  const before = event.previous;
  if (entry.status !== "PROCESSING" || before === null) return null;
  if (before.stepStatus === "DRAINING" && entry.stepStatus === "WAITING" && entry.drainBackoffExpire !== null) {
    return runnerAlert({ kind: "warning", severity: "warning", what: "drain backed off", plural: "drains backed off" }, event, {
      "back-offs": String(entry.drainBackoffCount),
      "retry after": entry.drainBackoffExpire,
      ...by,
    });
  }
  const started = before.stepStatus === "WAITING" && ((entry.stepStatus === "DRAINING" && entry.drainBackoffCount === 0) || entry.stepStatus === "WATCHING");
  if (!started) return null;
  const [what, plural] =
    entry.step === 0 ? ["repair started", "repairs started"] : [`repair step ${entry.step + 1} started`, `repairs started step ${entry.step + 1}`];
  return runnerAlert({ kind: "started", severity: "info", what, plural }, event, { source: entry.source, ...by });
}

function operatorAlert(event: RepairEntryEventPayload): Alert | null {
  const { entry, record, previous } = event;
  const by = { by: record.actor };
  const subject = `entry ${entry.index} for ${machineOf(entry)}`;
  if (event.kind === "BACKOFF_RESET") {
    const group = { key: `info:back-off reset by ${record.actor}`, plural: `drain back-offs reset by ${record.actor}`, subject };
    return entryAlert({ kind: "info", severity: "info", title: `drain back-off of ${subject} reset by ${record.actor}`, group }, event, by);
  }
  const unfinished = previous !== null && (previous.status === "QUEUED" || previous.status === "PROCESSING");
  if (!unfinished) return null;
  const group = { key: `warning:deleted by ${record.actor}`, plural: `unfinished entries deleted by ${record.actor}`, subject };
  return entryAlert({ kind: "warning", severity: "warning", title: `${subject} deleted by ${record.actor}`, group }, event, by);
}

function machineOf(entry: RepairEntryEventPayload["entry"]): string {
  return entry.nodename === "" ? entry.address : `${entry.address} (${entry.nodename})`;
}

/** How an alert about an entry is classed: its kind and severity. */
interface EntryAlertLook {
  readonly kind: AlertKind;
  readonly severity: AlertSeverity;
}

/** The runner's alert for `entry`: "WHAT: 10.0.0.1 (node1)", grouped with the other machines' as "PLURAL: …". */
function runnerAlert(
  { kind, severity, what, plural }: EntryAlertLook & { readonly what: string; readonly plural: string },
  event: RepairEntryEventPayload,
  extra: Record<string, string>,
): Alert {
  const subject = machineOf(event.entry);
  return entryAlert({ kind, severity, title: `${what}: ${subject}`, group: { key: `${kind}:${what}`, plural, subject } }, event, extra);
}

function entryAlert(
  { kind, severity, title, group }: EntryAlertLook & { readonly title: string; readonly group: Alert["group"] },
  { entry, record }: RepairEntryEventPayload,
  extra: Record<string, string>,
): Alert {
  const fields: Record<string, string> = { entry: entry.index, operation: `${entry.operation} on ${entry.machineType}`, step: String(entry.step + 1) };
  if (entry.serial) fields["serial"] = entry.serial;
  return { kind, severity, title, text: record.reason, fields: { ...fields, ...extra, time: record.time }, group };
}

function clip(text: string): string {
  return text.length <= DETAIL_CHARS ? text : `${text.slice(0, DETAIL_CHARS)}…`;
}

/**
 * The one message posted when the bridge may have missed events: after a reconnection (`cause` "reconnected"), or
 * after the server ended a subscription that fell behind. Times are milliseconds since the epoch.
 */
export function missedEventsAlert(server: string, from: number, to: number, cause: "reconnected" | "fell-behind"): Alert {
  const t1 = new Date(from).toISOString();
  const t2 = new Date(to).toISOString();
  const what =
    cause === "reconnected" ? `reconnected to ${server} after ${formatDuration(to - from)}` : `the subscription to ${server} fell behind and was restarted`;
  return {
    kind: "warning",
    severity: "warning",
    title: "kintsugi alerts may have missed events",
    text: `kintsugi alerts: ${what}; events between ${t1} and ${t2} may have been missed — check \`kintsugi repair-queue list\``,
    fields: {},
  };
}
