import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyEvent, eventLine, renderScreen, type WatchedEntry, type WatchedEvent } from "../../src/cli/watch-view.js";

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
  ...over,
});
const event = (kind: string, e: WatchedEntry, reason = "why"): WatchedEvent => ({ kind, entry: e, record: { time: "2026-11-22T05:00:01Z", reason } });

describe("watch view", () => {
  it("renders a table ordered by index, with steps, back-off and deletion", () => {
    const screen = renderScreen(
      [entry("10", { status: "PROCESSING", nodename: "node10", step: 1, stepStatus: "WATCHING" }), entry("2", { drainBackoffCount: 2, drainBackoffExpire: "2026-11-22T05:10:00Z", status: "PROCESSING" }), entry("3", { deleted: true, stepCount: null })],
      ["2026-11-22T05:00:01Z #10 ..."],
      "http://127.0.0.1:10180",
      200,
    );
    assert.equal(
      screen,
      [
        "kintsugi repair queue at http://127.0.0.1:10180 — 3 entries (Ctrl-C to quit)",
        "",
        "INDEX  ADDRESS    NODE    OPERATION    STATUS             STEP  STEP STATUS  BACKOFF                        SINCE",
        "2      10.0.0.2   -       unreachable  PROCESSING         1/2   WAITING      #2 until 2026-11-22T05:10:00Z  2026-11-22T05:00:00Z",
        "3      10.0.0.3   -       unreachable  QUEUED (deleting)  1     WAITING      -                              2026-11-22T05:00:00Z",
        "10     10.0.0.10  node10  unreachable  PROCESSING         2/2   WATCHING     -                              2026-11-22T05:00:00Z",
        "",
        "recent events:",
        "  2026-11-22T05:00:01Z #10 ...",
        "",
      ].join("\n"),
    );
  });

  it("cuts lines to the terminal's width", () => {
    for (const line of renderScreen([entry("1")], [], "http://x", 30).split("\n")) assert.ok(line.length <= 30, line);
  });

  it("writes one line per event", () => {
    assert.equal(eventLine(event("TRANSITION", entry("7", { status: "FAILED", step: 1 }), "step 2: repair command failed: exit code 3")), "2026-11-22T05:00:01Z #7 10.0.0.7 unreachable TRANSITION FAILED step 2/2 WAITING: step 2: repair command failed: exit code 3");
  });

  const HOSTILE = "\u001b[2J\u001b]0;pwned\u0007\r\n\u009b31m\u202e";
  const ESCAPED = "\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\x0a\\x9b31m\\u202e";
  const hostileEntry = entry("4", { address: HOSTILE, nodename: `node${HOSTILE}`, operation: `op${HOSTILE}` });
  const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it("escapes control characters in every cell of the table, and in the server's name", () => {
    const screen = renderScreen([hostileEntry], [], `http://x${HOSTILE}`, 1000);
    const lines = screen.split("\n");
    assert.ok(lines.every((l) => !CONTROL.test(l)), JSON.stringify(screen));
    assert.ok(lines[0]?.includes(`http://x${ESCAPED}`), lines[0]);
    assert.ok(lines[3]?.includes(`${ESCAPED}  node${ESCAPED}  op${ESCAPED}`), lines[3]);
  });

  it("escapes control characters in every field of an event line, the reason included", () => {
    const line = eventLine(event("TRANSITION", hostileEntry, `why${HOSTILE}`));
    assert.equal(line, `2026-11-22T05:00:01Z #4 ${ESCAPED} op${ESCAPED} TRANSITION QUEUED step 1/2 WAITING: why${ESCAPED}`);
  });

  it("keeps the entries up to date: replace on change, remove on dequeue", () => {
    let entries = new Map<string, WatchedEntry>();
    entries = applyEvent(entries, event("CREATED", entry("1")));
    entries = applyEvent(entries, event("TRANSITION", entry("1", { status: "PROCESSING" })));
    assert.equal(entries.get("1")?.status, "PROCESSING");
    entries = applyEvent(entries, event("DEQUEUED", entry("1")));
    assert.equal(entries.size, 0);
  });
});
