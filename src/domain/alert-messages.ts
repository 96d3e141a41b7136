/** How urgent an alert is: it picks the colour and the icon of the chat message. */
export type AlertSeverity = "info" | "warning" | "critical";

/** One chat message, before it is formatted for a webhook. */
export interface Alert {
  readonly severity: AlertSeverity;
  readonly title: string;
  readonly text: string;
  readonly fields: Readonly<Record<string, string>>;
}

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

/** An `autoRepairOutcomes` payload, with the fields the alerts use. */
export interface AutoRepairOutcomePayload {
  readonly sequence: string;
  readonly time: string;
  readonly trigger: string;
  readonly machinesSeen: number;
  readonly shortCircuit: { readonly existingEntries: number; readonly candidates: number; readonly limit: number } | null;
  readonly error: string | null;
}

/** What `alertForOutcome` remembers between polls. */
export interface OutcomeAlertState {
  /** Failed polls in a row. */
  readonly failedPolls: number;
  /** The time of the first of them; null when the last poll succeeded. */
  readonly failingSince: string | null;
  /** The last successful poll was short-circuited. */
  readonly shortCircuited: boolean;
}

export const INITIAL_OUTCOME_STATE: OutcomeAlertState = { failedPolls: 0, failingSince: null, shortCircuited: false };
export const DEFAULT_FAILURE_THRESHOLD = 3;
const DETAIL_CHARS = 600;

/**
 * The alert for one repair entry event, or null. Creations, notes and dequeues never alert (a creation's repair
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
 * The rules read the states before and after, never the reason's wording.
 */
export function alertFor(event: RepairEntryEventPayload): Alert | null {
  if (event.kind === "DELETE_REQUESTED" || event.kind === "BACKOFF_RESET") return operatorAlert(event);
  if (event.kind !== "TRANSITION") return null;
  const { entry, record } = event;
  if (entry.status === "SUCCEEDED") return runnerAlert("info", "repair succeeded", event, {});
  if (entry.status === "FAILED") {
    return runnerAlert("critical", "repair failed", event, record.detail ? { detail: clip(record.detail) } : {});
  }
  const before = event.previous;
  if (entry.status !== "PROCESSING" || before === null) return null;
  if (before.stepStatus === "DRAINING" && entry.stepStatus === "WAITING" && entry.drainBackoffExpire !== null) {
    return runnerAlert("warning", "drain backed off", event, { "back-offs": String(entry.drainBackoffCount), "retry after": entry.drainBackoffExpire });
  }
  const started =
    before.stepStatus === "WAITING" && ((entry.stepStatus === "DRAINING" && entry.drainBackoffCount === 0) || entry.stepStatus === "WATCHING");
  if (!started) return null;
  return runnerAlert("info", entry.step === 0 ? "repair started" : `repair step ${entry.step + 1} started`, event, { source: entry.source });
}

function operatorAlert(event: RepairEntryEventPayload): Alert | null {
  const { entry, record, previous } = event;
  const by = { by: record.actor };
  if (event.kind === "BACKOFF_RESET") {
    return entryAlert("info", `drain back-off of entry ${entry.index} for ${machineOf(entry)} reset by ${record.actor}`, event, by);
  }
  const unfinished = previous !== null && (previous.status === "QUEUED" || previous.status === "PROCESSING");
  if (!unfinished) return null;
  return entryAlert("warning", `entry ${entry.index} for ${machineOf(entry)} deleted by ${record.actor}`, event, by);
}

function machineOf(entry: RepairEntryEventPayload["entry"]): string {
  return entry.nodename === "" ? entry.address : `${entry.address} (${entry.nodename})`;
}

/** The runner's alert for `entry`: "WHAT: 10.0.0.1 (node1)". */
function runnerAlert(severity: AlertSeverity, what: string, event: RepairEntryEventPayload, extra: Record<string, string>): Alert {
  return entryAlert(severity, `${what}: ${machineOf(event.entry)}`, event, extra);
}

function entryAlert(severity: AlertSeverity, title: string, { entry, record }: RepairEntryEventPayload, extra: Record<string, string>): Alert {
  const fields: Record<string, string> = { entry: entry.index, operation: `${entry.operation} on ${entry.machineType}`, step: String(entry.step + 1) };
  if (entry.serial) fields["serial"] = entry.serial;
  return { severity, title, text: record.reason, fields: { ...fields, ...extra, time: record.time } };
}

function clip(text: string): string {
  return text.length <= DETAIL_CHARS ? text : `${text.slice(0, DETAIL_CHARS)}…`;
}

/**
 * The alert for one sabakan poll outcome, and the state for the next. Failed polls alert once, when `threshold`
 * fail in a row, and once more ("recovered") when a poll succeeds after that. A short-circuit alerts when it
 * starts and once when a successful poll is no longer short-circuited; the polls in between stay quiet.
 */
export function alertForOutcome(outcome: AutoRepairOutcomePayload, state: OutcomeAlertState, threshold = DEFAULT_FAILURE_THRESHOLD): { alert: Alert | null; state: OutcomeAlertState } {
  const poll = { poll: outcome.sequence, trigger: outcome.trigger, time: outcome.time };
  if (outcome.error !== null) {
    const next = { ...state, failedPolls: state.failedPolls + 1, failingSince: state.failingSince ?? outcome.time };
    if (next.failedPolls !== threshold) return { alert: null, state: next };
    const alert: Alert = { severity: "warning", title: `auto-repair: ${threshold} sabakan polls failed in a row`, text: `latest error: ${outcome.error}`, fields: { "failing since": next.failingSince, ...poll } };
    return { alert, state: next };
  }
  const alerts: Alert[] = [];
  if (state.failedPolls >= threshold) {
    alerts.push({ severity: "info", title: "auto-repair: sabakan polls succeed again", text: `after ${state.failedPolls} failed polls since ${state.failingSince}`, fields: poll });
  }
  const sc = outcome.shortCircuit;
  if (sc && !state.shortCircuited) {
    alerts.push({
      severity: "warning",
      title: "auto-repair short-circuited: too many repair requests",
      text: `enqueued nothing: ${sc.existingEntries} entries in the queue + ${sc.candidates} candidates > maximum-repair-queue-entries ${sc.limit}`,
      fields: { "existing entries": String(sc.existingEntries), candidates: String(sc.candidates), limit: String(sc.limit), "machines seen": String(outcome.machinesSeen), ...poll },
    });
  } else if (!sc && state.shortCircuited) {
    alerts.push({ severity: "info", title: "auto-repair no longer short-circuited", text: "the latest poll was within maximum-repair-queue-entries", fields: poll });
  }
  return { alert: merge(alerts), state: { failedPolls: 0, failingSince: null, shortCircuited: sc !== null } };
}

const RANK: Record<AlertSeverity, number> = { info: 0, warning: 1, critical: 2 };

function merge(alerts: readonly Alert[]): Alert | null {
  if (alerts.length <= 1) return alerts[0] ?? null;
  const severity = alerts.map((a) => a.severity).reduce((a, b) => (RANK[b] > RANK[a] ? b : a));
  return { severity, title: alerts.map((a) => a.title).join("; "), text: alerts.map((a) => a.text).join("\n"), fields: Object.assign({}, ...alerts.map((a) => a.fields)) as Record<string, string> };
}

/** "0s", "42s", "3m 5s", "2h 0m": how long the bridge was away. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/**
 * The one message posted when the bridge may have missed events: after a reconnection (`cause` "reconnected"), or
 * after the server ended a subscription that fell behind. Times are milliseconds since the epoch.
 */
export function missedEventsAlert(server: string, from: number, to: number, cause: "reconnected" | "fell-behind"): Alert {
  const t1 = new Date(from).toISOString();
  const t2 = new Date(to).toISOString();
  const what = cause === "reconnected" ? `reconnected to ${server} after ${formatDuration(to - from)}` : `the subscription to ${server} fell behind and was restarted`;
  return {
    severity: "warning",
    title: "kintsugi alerts may have missed events",
    text: `kintsugi alerts: ${what}; events between ${t1} and ${t2} may have been missed — check \`kintsugi repair-queue list\``,
    fields: {},
  };
}

/** The webhook body formats. */
export type AlertFormat = "slack" | "mattermost" | "json";
export const ALERT_FORMATS: readonly AlertFormat[] = ["slack", "mattermost", "json"];

const COLOR: Record<AlertSeverity, string> = { info: "#2eb67d", warning: "#ecb22e", critical: "#e01e5a" };
const ICON: Record<AlertSeverity, string> = { info: ":information_source:", warning: ":warning:", critical: ":rotating_light:" };
const attachmentFields = (alert: Alert, escape: (s: string) => string) =>
  Object.entries(alert.fields).map(([title, value]) => ({ title, value: escape(value), short: value.length <= 40 }));

// Slack's mrkdwn reads &, < and > as markup: https://api.slack.com/reference/surfaces/formatting#escaping
const slackEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A Slack incoming-webhook body: the message in `text`, the fields in one coloured attachment. */
export function formatSlack(alert: Alert): Record<string, unknown> {
  const text = `${ICON[alert.severity]} *${slackEscape(alert.title)}*\n${slackEscape(alert.text)}`;
  if (Object.keys(alert.fields).length === 0) return { text };
  return { text, attachments: [{ color: COLOR[alert.severity], fallback: `${alert.title}: ${alert.text}`, fields: attachmentFields(alert, slackEscape) }] };
}

/** A Mattermost incoming-webhook body (Markdown text, Slack-compatible attachment), posted as "kintsugi". */
export function formatMattermost(alert: Alert): Record<string, unknown> {
  const body = { username: "kintsugi", text: `${ICON[alert.severity]} **${alert.title}**\n${alert.text}` };
  if (Object.keys(alert.fields).length === 0) return body;
  return { ...body, attachments: [{ color: COLOR[alert.severity], fallback: `${alert.title}: ${alert.text}`, fields: attachmentFields(alert, (s) => s) }] };
}

/** The alert itself, marked `source: "kintsugi"`, for receivers of one's own. */
export function formatJson(alert: Alert): Record<string, unknown> {
  return { source: "kintsugi", severity: alert.severity, title: alert.title, text: alert.text, fields: { ...alert.fields } };
}

/** The formatter of each format. */
export const FORMATTERS: Readonly<Record<AlertFormat, (alert: Alert) => Record<string, unknown>>> = { slack: formatSlack, mattermost: formatMattermost, json: formatJson };
