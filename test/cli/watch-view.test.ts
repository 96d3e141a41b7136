import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyEvent, eventLine, renderScreen, type Screen, type WatchedEntry, type WatchedEvent } from "../../src/cli/watch-view.js";

const entry = (index: string, over: Partial<WatchedEntry> = {}): WatchedEntry => ({
  index,
  address: `10.0.0.${index}`,
  nodename: "",
  operation: "unreachable",
  status: "QUEUED",
  step: 0,
  stepCount: 2,
  stepStatus: "WAITING",
  deleted: false,
  drainBackoffCount: 0,
  drainBackoffExpire: null,
  lastTransitionTime: "2026-11-22T05:00:00Z",
  reason: "added by an operator",
  ...over,
});
const event = (kind: string, e: WatchedEntry, reason = "why"): WatchedEvent => ({ kind, entry: e, record: { time: "2026-11-22T05:00:01Z", reason } });
const screen = (over: Partial<Screen>): string => renderScreen({ entries: [], recent: [], server: "http://127.0.0.1:10180", width: 200, status: null, ...over });

const LONG_REASON = "drain backed off: pod default/web-1: Cannot evict pod as it would violate the pod's disruption budget";
const WATCHING_REASON = "step 2: repair command succeeded; watching the health check for 600 s";
const ENTRIES = [
  entry("10", { status: "PROCESSING", nodename: "node10", step: 1, stepStatus: "WATCHING", reason: WATCHING_REASON }),
  entry("2", { drainBackoffCount: 2, drainBackoffExpire: "2026-11-22T05:10:00Z", status: "PROCESSING", reason: LONG_REASON }),
  entry("3", { deleted: true, stepCount: null }),
];

describe("watch view", () => {
  it("renders a table ordered by index, with steps, back-off, deletion and each entry's latest reason", () => {
    assert.equal(
      screen({ entries: ENTRIES, recent: [event("TRANSITION", ENTRIES[0] as WatchedEntry, WATCHING_REASON)], width: 250 }),
      [
        "kintsugi repair queue at http://127.0.0.1:10180 — 3 entries (Ctrl-C to quit)",
        "",
        "INDEX  ADDRESS    NODE    OPERATION    STATUS             STEP  STEP STATUS  BACKOFF                        SINCE                 REASON",
        `2      10.0.0.2   -       unreachable  PROCESSING         1/2   WAITING      #2 until 2026-11-22T05:10:00Z  2026-11-22T05:00:00Z  ${LONG_REASON}`,
        "3      10.0.0.3   -       unreachable  QUEUED (deleting)  1     WAITING      -                              2026-11-22T05:00:00Z  added by an operator",
        `10     10.0.0.10  node10  unreachable  PROCESSING         2/2   WATCHING     -                              2026-11-22T05:00:00Z  ${WATCHING_REASON}`,
        "",
        "recent events:",
        `  05:00:01 #10 10.0.0.10 PROCESSING 2/2: ${WATCHING_REASON}`,
        "",
      ].join("\n"),
    );
  });

  // What a narrower terminal gives up, in order, so that the reason stays readable.
  const widths: Array<[string, number, string, "a column" | "a line under each row"]> = [
    ["wide enough for everything", 250, "INDEX  ADDRESS    NODE    OPERATION    STATUS             STEP  STEP STATUS  BACKOFF                        SINCE                 REASON", "a column"],
    ["the time goes first", 165, "INDEX  ADDRESS    NODE    OPERATION    STATUS             STEP  STEP STATUS  BACKOFF                        REASON", "a column"],
    ["then the node and the back-off", 120, "INDEX  ADDRESS    OPERATION    STATUS             STEP  STEP STATUS  REASON", "a column"],
    ["an 80-column terminal", 80, "INDEX  ADDRESS    OPERATION    STATUS             STEP  STEP STATUS", "a line under each row"],
    ["a very narrow one", 40, "INDEX  ADDRESS    OPERATION    STATUS  …", "a line under each row"],
  ];
  for (const [name, width, header, reasonAs] of widths) {
    it(`fits ${width} columns and keeps every reason visible: ${name}`, () => {
      const recent = [event("TRANSITION", ENTRIES[1] as WatchedEntry, LONG_REASON)];
      const lines = screen({ entries: ENTRIES, recent, width, status: "connection to http://127.0.0.1:10180 lost (closed with 1006); reconnecting" }).split("\n");
      for (const line of lines) assert.ok([...line].length <= width, `${[...line].length} > ${width}: ${line}`);
      assert.equal(lines[3], header);
      for (const e of ENTRIES) {
        const rowAt = lines.findIndex((l) => l.startsWith(`${e.index} `));
        const shown = reasonAs === "a column" ? lines[rowAt]?.slice(header.indexOf("REASON")) : lines[rowAt + 1]?.replace(/^ {4}/, "");
        const room = reasonAs === "a column" ? 40 : width - 4;
        assert.ok(shown !== undefined && shown.length >= Math.min(e.reason.length, room), `the reason of #${e.index}: ${JSON.stringify(shown)}`);
        const cut = shown.endsWith("…");
        assert.ok(cut ? e.reason.startsWith(shown.slice(0, -1)) : shown === e.reason, `#${e.index} shows ${JSON.stringify(shown)}, cut sensibly from ${JSON.stringify(e.reason)}`);
      }
      if (width >= 80) assert.ok(lines.some((l) => l.startsWith("  05:00:01 #2 10.0.0.2 PROCESSING 1/2: drain backed off")), "the recent event keeps the start of its reason");
    });
  }

  it("shows the connection's news under the header, cut to the width", () => {
    const lines = screen({ status: "connection to http://127.0.0.1:10180 lost (closed with 1006); reconnecting", width: 60 }).split("\n");
    assert.equal(lines[1], "connection to http://127.0.0.1:10180 lost (closed with 1006…");
  });

  it("cuts lines to the terminal's width", () => {
    for (const line of screen({ entries: [entry("1")], width: 30 }).split("\n")) assert.ok(line.length <= 30, line);
  });

  it("writes one line per event", () => {
    assert.equal(eventLine(event("TRANSITION", entry("7", { status: "FAILED", step: 1 }), "step 2: repair command failed: exit code 3")), "2026-11-22T05:00:01Z #7 10.0.0.7 unreachable TRANSITION FAILED step 2/2 WAITING: step 2: repair command failed: exit code 3");
  });

  const HOSTILE = "\u001b[2J\u001b]0;pwned\u0007\r\n\u009b31m\u202e";
  const ESCAPED = "\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\x0a\\x9b31m\\u202e";
  const hostileEntry = entry("4", { address: HOSTILE, nodename: `node${HOSTILE}`, operation: `op${HOSTILE}`, reason: `why${HOSTILE}` });
  const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it("escapes control characters in every cell of the table, the reason included, in the server's name and in the status", () => {
    const text = screen({ entries: [hostileEntry], recent: [event("TRANSITION", hostileEntry, `why${HOSTILE}`)], server: `http://x${HOSTILE}`, width: 1000, status: `lost${HOSTILE}` });
    const lines = text.split("\n");
    assert.ok(lines.every((l) => !CONTROL.test(l)), JSON.stringify(text));
    assert.ok(lines[0]?.includes(`http://x${ESCAPED}`), lines[0]);
    assert.equal(lines[1], `lost${ESCAPED}`);
    assert.ok(lines[4]?.includes(`${ESCAPED}  node${ESCAPED}  op${ESCAPED}`), lines[4]);
    assert.ok(lines[4]?.endsWith(`why${ESCAPED}`), lines[4]);
  });

  it("escapes control characters in every field of an event line, the reason included", () => {
    const line = eventLine(event("TRANSITION", hostileEntry, `why${HOSTILE}`));
    assert.equal(line, `2026-11-22T05:00:01Z #4 ${ESCAPED} op${ESCAPED} TRANSITION QUEUED step 1/2 WAITING: why${ESCAPED}`);
  });

  it("keeps the entries up to date: replace on change with the event's reason, remove on dequeue", () => {
    let entries = new Map<string, WatchedEntry>();
    entries = applyEvent(entries, event("CREATED", entry("1"), "added by an operator"));
    entries = applyEvent(entries, event("TRANSITION", entry("1", { status: "PROCESSING" }), "step 1: draining"));
    assert.equal(entries.get("1")?.status, "PROCESSING");
    assert.equal(entries.get("1")?.reason, "step 1: draining");
    entries = applyEvent(entries, event("DEQUEUED", entry("1")));
    assert.equal(entries.size, 0);
  });
});
