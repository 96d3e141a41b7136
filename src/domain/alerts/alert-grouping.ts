import { mostSevere, type Alert } from "./alert.js";

/** Alerts of one group key waiting for their window to end; `opened` is when the first came (ms). */
export interface PendingGroup {
  readonly key: string;
  readonly opened: number;
  readonly alerts: readonly [Alert, ...Alert[]];
}

/** The groups waiting, oldest first. */
export type GroupingState = readonly PendingGroup[];

/** What a grouping step posts now, in order, and what waits. */
export interface GroupingStep {
  readonly post: readonly Alert[];
  readonly state: GroupingState;
}

export const NO_PENDING_GROUPS: GroupingState = [];

/** How many machines a grouped title names, and how many lines its text lists, before "and N more". */
export const GROUP_TITLE_SUBJECTS = 8;
export const GROUP_TEXT_LINES = 20;

/**
 * The most alerts that wait in groups at once: a flood (a storm of events, a hostile server) within a long window
 * is posted early, in messages of about this many, instead of being kept in memory until the window ends.
 */
export const MAX_WAITING_ALERTS = 1000;

/** How many alerts wait in all the groups. */
export function waitingAlerts(state: GroupingState): number {
  return state.reduce((n, g) => n + g.alerts.length, 0);
}

/**
 * Takes one alert at `now`. With a window of 0 or less, or an alert that is never grouped, everything waiting is
 * posted first (so messages keep the order of their events) and then the alert. Otherwise the groups whose
 * window has ended are posted, and the alert joins the waiting group of its key, or opens one at `now`: no alert
 * waits longer than the window. When {@link MAX_WAITING_ALERTS} already wait, they are all posted first and the
 * alert opens a group of its own.
 */
export function addAlert(state: GroupingState, alert: Alert, now: number, windowMs: number): GroupingStep {
  if (windowMs <= 0 || !alert.group) return { post: [...flushAll(state).post, alert], state: NO_PENDING_GROUPS };
  const due = dueGroups(state, now, windowMs);
  if (waitingAlerts(due.state) >= MAX_WAITING_ALERTS) {
    return { post: [...due.post, ...flushAll(due.state).post], state: [{ key: alert.group.key, opened: now, alerts: [alert] }] };
  }
  const { post, state: waiting } = due;
  const key = alert.group.key;
  const joined = waiting.some((g) => g.key === key);
  const next: PendingGroup[] = joined
    ? waiting.map((g): PendingGroup => (g.key === key ? { ...g, alerts: [...g.alerts, alert] } : g))
    : [...waiting, { key, opened: now, alerts: [alert] }];
  return { post, state: next };
}

/** Posts the groups whose window has ended by `now` (opened at least `windowMs` ago), oldest first. */
export function dueGroups(state: GroupingState, now: number, windowMs: number): GroupingStep {
  const due = state.filter((g) => now - g.opened >= windowMs);
  if (due.length === 0) return { post: [], state };
  return { post: due.map(groupAlert), state: state.filter((g) => now - g.opened < windowMs) };
}

/** When the oldest waiting group's window ends (ms), or null when nothing waits. */
export function nextDue(state: GroupingState, windowMs: number): number | null {
  const first = state[0];
  return first === undefined ? null : first.opened + windowMs;
}

/** Posts every waiting group at once, oldest first (shutdown, or an alert that must not wait behind them). */
export function flushAll(state: GroupingState): GroupingStep {
  return { post: state.map(groupAlert), state: NO_PENDING_GROUPS };
}

/**
 * One message for a group: a lone alert as it is; N alerts as "N PLURAL: a, b, … (and M more)" with one line per
 * alert (or the common text once), the fields all of them share with the same value, and the span of their times.
 */
export function groupAlert(group: PendingGroup): Alert {
  const { alerts } = group;
  const [first] = alerts;
  if (alerts.length === 1 || !first.group) return first;
  const subjects = alerts.map((a) => a.group?.subject ?? a.title);
  const named = subjects.slice(0, GROUP_TITLE_SUBJECTS).join(", ");
  const unnamed = subjects.length - GROUP_TITLE_SUBJECTS;
  const title = `${alerts.length} ${first.group.plural}: ${named}${unnamed > 0 ? ` (and ${unnamed} more)` : ""}`;
  const sameText = alerts.every((a) => a.text === first.text);
  const lines = sameText ? [first.text] : alerts.slice(0, GROUP_TEXT_LINES).map((a, i) => `${subjects[i]}: ${a.text}`);
  const unlisted = sameText ? 0 : alerts.length - GROUP_TEXT_LINES;
  const text = [...lines, ...(unlisted > 0 ? [`… and ${unlisted} more`] : [])].join("\n");
  const shared = Object.entries(first.fields).filter(([name, value]) => name !== "time" && alerts.every((a) => a.fields[name] === value));
  const times = alerts.map((a) => a.fields["time"]).filter((t): t is string => t !== undefined);
  const [earliest, latest] = [times[0], times.at(-1)];
  const span: Record<string, string> =
    earliest === undefined || latest === undefined ? {} : earliest === latest ? { time: earliest } : { from: earliest, to: latest };
  return {
    kind: first.kind,
    severity: mostSevere(alerts.map((a) => a.severity)),
    title,
    text,
    fields: { count: String(alerts.length), ...Object.fromEntries(shared), ...span },
  };
}
