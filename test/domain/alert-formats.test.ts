import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Alert, AlertKind } from "../../src/domain/alert.js";
import { formatJson, formatMattermost, formatSlack, KIND_COLORS, KIND_ICONS } from "../../src/domain/alert-formats.js";

describe("formatters", () => {
  const alert: Alert = {
    kind: "failed", severity: "critical", title: "repair failed: 10.0.0.1", text: "exit code 3 <stderr> & more", fields: { entry: "7", detail: "x".repeat(41) },
    group: { key: "failed:repair failed", plural: "repairs failed", subject: "10.0.0.1" },
  };
  const bare: Alert = { kind: "warning", severity: "warning", title: "kintsugi alerts may have missed events", text: "check it", fields: {} };
  const cases: Array<[string, () => unknown, unknown]> = [
    ["slack: text with icon and escaping, fields in one coloured attachment", () => formatSlack(alert), {
      text: ":x: *repair failed: 10.0.0.1*\nexit code 3 &lt;stderr&gt; &amp; more",
      attachments: [{ color: "#e01e5a", fallback: "repair failed: 10.0.0.1: exit code 3 <stderr> & more", fields: [{ title: "entry", value: "7", short: true }, { title: "detail", value: "x".repeat(41), short: false }] }],
    }],
    ["slack without fields: text only", () => formatSlack(bare), { text: ":warning: *kintsugi alerts may have missed events*\ncheck it" }],
    ["mattermost: posted as kintsugi, Markdown, a Slack-style attachment", () => formatMattermost(alert), {
      username: "kintsugi", text: ":x: **repair failed: 10.0.0.1**\nexit code 3 <stderr> & more",
      attachments: [{ color: "#e01e5a", fallback: "repair failed: 10.0.0.1: exit code 3 <stderr> & more", fields: [{ title: "entry", value: "7", short: true }, { title: "detail", value: "x".repeat(41), short: false }] }],
    }],
    ["mattermost without fields", () => formatMattermost(bare), { username: "kintsugi", text: ":warning: **kintsugi alerts may have missed events**\ncheck it" }],
    ["json: the alert, its kind and its source, without the grouping key", () => formatJson(alert), {
      source: "kintsugi", kind: "failed", severity: "critical", title: alert.title, text: alert.text, fields: alert.fields,
    }],
  ];
  for (const [name, format, expected] of cases) it(name, () => assert.deepEqual(format(), expected));

  const kinds: AlertKind[] = ["started", "succeeded", "failed", "held", "cleared", "warning", "info"];
  it("gives every kind of alert an icon and a colour of its own", () => {
    assert.deepEqual(Object.keys(KIND_ICONS).sort(), [...kinds].sort());
    assert.equal(new Set(Object.values(KIND_ICONS)).size, kinds.length);
    assert.equal(new Set(Object.values(KIND_COLORS)).size, kinds.length);
    for (const color of Object.values(KIND_COLORS)) assert.match(color, /^#[0-9a-f]{6}$/);
  });

  for (const kind of kinds) {
    it(`a ${kind} alert: its icon leads the text and its colour marks the attachment`, () => {
      const body = formatSlack({ ...alert, kind }) as { text: string; attachments: Array<{ color: string }> };
      assert.ok(body.text.startsWith(`${KIND_ICONS[kind]} `));
      assert.equal(body.attachments[0]?.color, KIND_COLORS[kind]);
    });
  }
});
