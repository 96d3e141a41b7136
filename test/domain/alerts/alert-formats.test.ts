import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Alert, AlertKind } from "../../../src/domain/alerts/alert.js";
import { formatJson, formatMattermost, formatSlack, KIND_COLORS, KIND_ICONS, MESSAGE_LIMITS } from "../../../src/domain/alerts/alert-formats.js";

describe("formatters", () => {
  const alert: Alert = {
    kind: "failed",
    severity: "critical",
    title: "repair failed: 10.0.0.1",
    text: "exit code 3 <stderr> & more",
    fields: { entry: "7", detail: "x".repeat(41) },
    group: { key: "failed:repair failed", plural: "repairs failed", subject: "10.0.0.1" },
  };
  const bare: Alert = { kind: "warning", severity: "warning", title: "kintsugi alerts may have missed events", text: "check it", fields: {} };
  const cases: Array<[string, () => unknown, unknown]> = [
    [
      "slack: text with icon and escaping, fields in one coloured attachment",
      () => formatSlack(alert),
      {
        text: ":x: *repair failed: 10.0.0.1*\nexit code 3 &lt;stderr&gt; &amp; more",
        attachments: [
          {
            color: "#e01e5a",
            fallback: "repair failed: 10.0.0.1: exit code 3 &lt;stderr&gt; &amp; more",
            fields: [
              { title: "entry", value: "7", short: true },
              { title: "detail", value: "x".repeat(41), short: false },
            ],
          },
        ],
      },
    ],
    ["slack without fields: text only", () => formatSlack(bare), { text: ":warning: *kintsugi alerts may have missed events*\ncheck it" }],
    [
      "mattermost: posted as kintsugi, Markdown, a Slack-style attachment",
      () => formatMattermost(alert),
      {
        username: "kintsugi",
        text: ":x: **repair failed: 10.0.0.1**\nexit code 3 \\<stderr\\> & more",
        attachments: [
          {
            color: "#e01e5a",
            fallback: "repair failed: 10.0.0.1: exit code 3 <stderr> & more",
            fields: [
              { title: "entry", value: "7", short: true },
              { title: "detail", value: "x".repeat(41), short: false },
            ],
          },
        ],
      },
    ],
    [
      "mattermost without fields",
      () => formatMattermost(bare),
      { username: "kintsugi", text: ":warning: **kintsugi alerts may have missed events**\ncheck it" },
    ],
    [
      "json: the alert, its kind and its source, without the grouping key",
      () => formatJson(alert),
      {
        source: "kintsugi",
        kind: "failed",
        severity: "critical",
        title: alert.title,
        text: alert.text,
        fields: alert.fields,
      },
    ],
  ];
  for (const [name, format, expected] of cases) it(name, () => assert.deepEqual(format(), expected));

  // What a hostile or compromised server (or sabakan, a node, a repair command's output) put in a reason, a name or an
  // actor reaches the room: it must not notify anyone, make a link or an image, or flood the room.
  const hostile: Alert = {
    kind: "failed",
    severity: "critical",
    title: "repair failed: <!channel> @here",
    text: "<!here|here> @all @channel ![pixel](http://evil.invalid/p.png) [click](http://evil.invalid) <http://evil.invalid|docs> *bold* # head | x | ~town",
    fields: { "requested by": "<@U024BE7LH> @channel [x](http://evil.invalid)" },
  };
  const strings = (body: unknown): string[] =>
    typeof body === "string" ? [body] : body && typeof body === "object" ? Object.values(body).flatMap(strings) : [];
  // Slack's mentions and links are all control sequences in < >, wherever they stand.
  it("slack: what the server sent mentions no one and makes no link, in the text, the fields and the fallback", () => {
    const texts = strings(formatSlack(hostile));
    assert.equal(texts.filter((text) => text.includes("evil.invalid")).length, 3, "the text, the field and the fallback");
    for (const text of texts) assert.doesNotMatch(text, /</, text);
  });
  // Mattermost's are @words (in any text, the plain fallback too) and Markdown links and images (where Markdown is read).
  it("mattermost: what the server sent mentions no one, and makes no link or image where Markdown is read", () => {
    const body = formatMattermost(hostile) as { text: string; attachments: Array<{ fallback: string; fields: Array<{ value: string }> }> };
    const [attachment] = body.attachments;
    const markdown = [body.text, ...(attachment?.fields.map((f) => f.value) ?? [])];
    for (const text of [...markdown, attachment?.fallback ?? ""]) assert.doesNotMatch(text, /@(channel|here|all)\b/, text);
    for (const text of markdown) assert.doesNotMatch(text, /(^|[^\\])[[<]/, text);
    assert.equal(markdown.filter((text) => text.includes("evil.invalid")).length, 2, "the text and the field");
  });
  it("mattermost: escaped text still reads as it was sent", () => {
    const body = formatMattermost(hostile) as { text: string };
    assert.equal(body.text.replaceAll("\u200b", "").replace(/\\(.)/g, "$1"), `:x: **${hostile.title}**\n${hostile.text}`);
  });
  const huge: Alert = { ...hostile, title: "t".repeat(100_000), text: "r".repeat(100_000), fields: { detail: "d".repeat(100_000) } };
  for (const [name, format] of [
    ["slack", formatSlack],
    ["mattermost", formatMattermost],
    ["json", formatJson],
  ] as const) {
    it(`${name}: a title, a text and field values of any length are cut, with "…"`, () => {
      const body = JSON.stringify(format(huge));
      assert.ok(body.length < 2 * (MESSAGE_LIMITS.title + MESSAGE_LIMITS.text + MESSAGE_LIMITS.field) + 1000, `${body.length} characters`);
      assert.match(body, /t…/);
      assert.match(body, /r…/);
      assert.match(body, /d…/);
    });
  }

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
