import type { Alert, AlertKind } from "./alert.js";

/** The webhook body formats. */
export type AlertFormat = "slack" | "mattermost" | "json";
export const ALERT_FORMATS: readonly AlertFormat[] = ["slack", "mattermost", "json"];

/** The attachment colour of each kind of alert: blue, green, red, orange, cyan, yellow, grey. */
export const KIND_COLORS: Readonly<Record<AlertKind, string>> = {
  started: "#439fe0",
  succeeded: "#2eb67d",
  failed: "#e01e5a",
  held: "#e8912d",
  cleared: "#36c5f0",
  warning: "#ecb22e",
  info: "#9e9ea6",
};

/** The icon of each kind, as an emoji short code both Slack and Mattermost know. */
export const KIND_ICONS: Readonly<Record<AlertKind, string>> = {
  started: ":wrench:",
  succeeded: ":white_check_mark:",
  failed: ":x:",
  held: ":raised_hand:",
  cleared: ":arrow_forward:",
  warning: ":warning:",
  info: ":information_source:",
};
const attachmentFields = (alert: Alert, escape: (s: string) => string) =>
  Object.entries(alert.fields).map(([title, value]) => ({ title, value: escape(value), short: value.length <= 40 }));

// Slack's mrkdwn reads &, < and > as markup: https://api.slack.com/reference/surfaces/formatting#escaping
const slackEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** A Slack incoming-webhook body: the message in `text`, the fields in one coloured attachment. */
export function formatSlack(alert: Alert): Record<string, unknown> {
  const text = `${KIND_ICONS[alert.kind]} *${slackEscape(alert.title)}*\n${slackEscape(alert.text)}`;
  if (Object.keys(alert.fields).length === 0) return { text };
  return { text, attachments: [{ color: KIND_COLORS[alert.kind], fallback: `${alert.title}: ${alert.text}`, fields: attachmentFields(alert, slackEscape) }] };
}

/** A Mattermost incoming-webhook body (Markdown text, Slack-compatible attachment), posted as "kintsugi". */
export function formatMattermost(alert: Alert): Record<string, unknown> {
  const body = { username: "kintsugi", text: `${KIND_ICONS[alert.kind]} **${alert.title}**\n${alert.text}` };
  if (Object.keys(alert.fields).length === 0) return body;
  return { ...body, attachments: [{ color: KIND_COLORS[alert.kind], fallback: `${alert.title}: ${alert.text}`, fields: attachmentFields(alert, (s) => s) }] };
}

/** The alert itself, marked `source: "kintsugi"`, for receivers of one's own. */
export function formatJson(alert: Alert): Record<string, unknown> {
  return { source: "kintsugi", kind: alert.kind, severity: alert.severity, title: alert.title, text: alert.text, fields: { ...alert.fields } };
}

/** The formatter of each format. */
export const FORMATTERS: Readonly<Record<AlertFormat, (alert: Alert) => Record<string, unknown>>> = { slack: formatSlack, mattermost: formatMattermost, json: formatJson };
