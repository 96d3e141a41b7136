/** How urgent an alert is (receivers of the JSON format route on it). */
export type AlertSeverity = "info" | "warning" | "critical";

/**
 * What an alert tells, which picks the icon and the colour of its chat message: a repair started, succeeded or
 * failed; machines deferred by auto-repair or no longer deferred; something else worth a look (`warning`) or worth
 * knowing (`info`).
 */
export type AlertKind = "started" | "succeeded" | "failed" | "held" | "cleared" | "warning" | "info";

/**
 * How an alert may be grouped with others in one chat message: alerts with the same `key` that come within the
 * grouping window are posted as one, "N `plural`: `subject`, …".
 */
export interface AlertGroup {
  readonly key: string;
  /** What N of them are: "repairs succeeded". */
  readonly plural: string;
  /** What this one is about: "10.0.0.1 (node1)". */
  readonly subject: string;
}

/** One chat message, before it is formatted for a webhook. */
export interface Alert {
  readonly kind: AlertKind;
  readonly severity: AlertSeverity;
  readonly title: string;
  readonly text: string;
  readonly fields: Readonly<Record<string, string>>;
  /** Absent or null: never grouped (holds, clears, poll problems, missed events are told on their own). */
  readonly group?: AlertGroup | null;
}

const RANK: Record<AlertSeverity, number> = { info: 0, warning: 1, critical: 2 };

/** The most urgent of some severities ("info" for none). */
export function mostSevere(severities: readonly AlertSeverity[]): AlertSeverity {
  return severities.reduce<AlertSeverity>((a, b) => (RANK[b] > RANK[a] ? b : a), "info");
}

/**
 * Several alerts about one thing as one message: titles joined with "; ", texts one per line, fields merged, the
 * most urgent severity; the kind is the first one's of the most urgent severity. Null for none.
 */
export function mergeAlerts(alerts: readonly Alert[]): Alert | null {
  if (alerts.length <= 1) return alerts[0] ?? null;
  const severity = mostSevere(alerts.map((a) => a.severity));
  const kind = alerts.find((a) => a.severity === severity)?.kind ?? "info";
  return {
    kind,
    severity,
    title: alerts.map((a) => a.title).join("; "),
    text: alerts.map((a) => a.text).join("\n"),
    fields: Object.assign({}, ...alerts.map((a) => a.fields)) as Record<string, string>,
  };
}

/** "0s", "42s", "3m 5s", "2h 0m": how long something lasted. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}
