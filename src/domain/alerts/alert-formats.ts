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
/** The longest title, text and field value a message carries: a server's words (reasons, names) never flood a room. */
export const MESSAGE_LIMITS = { title: 500, text: 4000, field: 1000 } as const;

const clip = (s: string, limit: number) => (s.length <= limit ? s : `${s.slice(0, limit)}…`);

/** The alert with its title, text and field values cut to {@link MESSAGE_LIMITS}. */
function bounded(alert: Alert): Alert {
  const fields = Object.fromEntries(Object.entries(alert.fields).map(([name, value]) => [name, clip(value, MESSAGE_LIMITS.field)]));
  return { ...alert, title: clip(alert.title, MESSAGE_LIMITS.title), text: clip(alert.text, MESSAGE_LIMITS.text), fields };
}

const attachmentFields = (alert: Alert, escape: (s: string) => string) =>
  Object.entries(alert.fields).map(([title, value]) => ({ title, value: escape(value), short: value.length <= 40 }));

// Slack's mrkdwn reads &, < and > as markup (<!channel>, <@U123>, links): https://api.slack.com/reference/surfaces/formatting#escaping
const slackEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

// Mattermost notifies for @channel, @all, @here and @user wherever the word stands (a backslash does not stop it): a
// zero-width space after each @ breaks the word, so the text reads the same and notifies no one.
const noMentions = (s: string) => s.replace(/@/g, "@\u200b");
// Its Markdown makes links and images (which every reader's client would load) of [ ] and < >; the rest is emphasis,
// headings and tables a server's words must not switch on. Code spans are left: they switch nothing on.
const mattermostEscape = (s: string) => noMentions(s).replace(/[\\*_~[\]<>|#]/g, "\\$&");

/**
 * A Slack incoming-webhook body: the message in `text`, the fields in one coloured attachment. What the server sent
 * (reasons, names, actors) is escaped, so it cannot mention a channel or make a link, and cut to {@link MESSAGE_LIMITS}.
 */
export function formatSlack(given: Alert): Record<string, unknown> {
  const alert = bounded(given);
  const text = `${KIND_ICONS[alert.kind]} *${slackEscape(alert.title)}*\n${slackEscape(alert.text)}`;
  if (Object.keys(alert.fields).length === 0) return { text };
  const fallback = slackEscape(`${alert.title}: ${alert.text}`);
  return { text, attachments: [{ color: KIND_COLORS[alert.kind], fallback, fields: attachmentFields(alert, slackEscape) }] };
}

/**
 * A Mattermost incoming-webhook body (Markdown text, Slack-compatible attachment), posted as "kintsugi". What the
 * server sent is escaped, so it cannot mention anyone or make a link or an image, and cut to {@link MESSAGE_LIMITS}.
 */
export function formatMattermost(given: Alert): Record<string, unknown> {
  const alert = bounded(given);
  const body = { username: "kintsugi", text: `${KIND_ICONS[alert.kind]} **${mattermostEscape(alert.title)}**\n${mattermostEscape(alert.text)}` };
  if (Object.keys(alert.fields).length === 0) return body;
  // The fallback is plain text (notifications): no Markdown to escape, but mentions all the same.
  const fallback = noMentions(`${alert.title}: ${alert.text}`);
  return { ...body, attachments: [{ color: KIND_COLORS[alert.kind], fallback, fields: attachmentFields(alert, mattermostEscape) }] };
}

/** The alert itself, marked `source: "kintsugi"`, for receivers of one's own. */
export function formatJson(given: Alert): Record<string, unknown> {
  const alert = bounded(given);
  return { source: "kintsugi", kind: alert.kind, severity: alert.severity, title: alert.title, text: alert.text, fields: { ...alert.fields } };
}

/** The formatter of each format. */
export const FORMATTERS: Readonly<Record<AlertFormat, (alert: Alert) => Record<string, unknown>>> = {
  slack: formatSlack,
  mattermost: formatMattermost,
  json: formatJson,
};
