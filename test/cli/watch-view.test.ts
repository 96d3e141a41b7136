import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { applyEvent, applyWaits, eventLine, renderScreen, waitLine, type Screen, type WatchedEntry, type WatchedEvent } from "../../src/cli/watch-view.js";

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
  wait: null,
  ...over,
});
const event = (kind: string, e: WatchedEntry, reason = "why"): WatchedEvent => ({ kind, entry: e, record: { time: "2026-11-22T05:00:01Z", reason } });
const screen = (over: Partial<Screen>): string =>
  renderScreen({ entries: [], recent: [], server: "http://127.0.0.1:10180", width: 200, status: null, ...over });

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
    [
      "wide enough for everything",
      250,
      "INDEX  ADDRESS    NODE    OPERATION    STATUS             STEP  STEP STATUS  BACKOFF                        SINCE                 REASON",
      "a column",
    ],
    [
      "the time goes first",
      165,
      "INDEX  ADDRESS    NODE    OPERATION    STATUS             STEP  STEP STATUS  BACKOFF                        REASON",
      "a column",
    ],
    ["then the node and the back-off", 120, "INDEX  ADDRESS    OPERATION    STATUS             STEP  STEP STATUS  REASON", "a column"],
    ["an 80-column terminal", 80, "INDEX  ADDRESS    OPERATION    STATUS             STEP  STEP STATUS", "a line under each row"],
    ["a very narrow one", 40, "INDEX  ADDRESS    OPERATION    STATUS  …", "a line under each row"],
  ];
  for (const [name, width, header, reasonAs] of widths) {
    it(`fits ${width} columns and keeps every reason visible: ${name}`, () => {
      const recent = [event("TRANSITION", ENTRIES[1] as WatchedEntry, LONG_REASON)];
      const lines = screen({ entries: ENTRIES, recent, width, status: "connection to http://127.0.0.1:10180 lost (closed with 1006); reconnecting" }).split(
        "\n",
      );
      for (const line of lines) assert.ok([...line].length <= width, `${[...line].length} > ${width}: ${line}`);
      assert.equal(lines[3], header);
      for (const e of ENTRIES) {
        const rowAt = lines.findIndex((l) => l.startsWith(`${e.index} `));
        const shown = reasonAs === "a column" ? lines[rowAt]?.slice(header.indexOf("REASON")) : lines[rowAt + 1]?.replace(/^ {4}/, "");
        const room = reasonAs === "a column" ? 40 : width - 4;
        assert.ok(shown !== undefined && shown.length >= Math.min(e.reason.length, room), `the reason of #${e.index}: ${JSON.stringify(shown)}`);
        const cut = shown.endsWith("…");
        assert.ok(
          cut ? e.reason.startsWith(shown.slice(0, -1)) : shown === e.reason,
          `#${e.index} shows ${JSON.stringify(shown)}, cut sensibly from ${JSON.stringify(e.reason)}`,
        );
      }
      if (width >= 80)
        assert.ok(
          lines.some((l) => l.startsWith("  05:00:01 #2 10.0.0.2 PROCESSING 1/2: drain backed off")),
          "the recent event keeps the start of its reason",
        );
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
    assert.equal(
      eventLine(event("TRANSITION", entry("7", { status: "FAILED", step: 1 }), "step 2: repair command failed: exit code 3")),
      "2026-11-22T05:00:01Z #7 10.0.0.7 unreachable TRANSITION FAILED step 2/2 WAITING: step 2: repair command failed: exit code 3",
    );
  });

  const HOSTILE = "\u001b[2J\u001b]0;pwned\u0007\r\n\u009b31m\u202e";
  const ESCAPED = "\\x1b[2J\\x1b]0;pwned\\x07\\x0d\\x0a\\x9b31m\\u202e";
  const hostileEntry = entry("4", { address: HOSTILE, nodename: `node${HOSTILE}`, operation: `op${HOSTILE}`, reason: `why${HOSTILE}` });
  const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

  it("escapes control characters in every cell of the table, the reason included, in the server's name and in the status", () => {
    const text = screen({
      entries: [hostileEntry],
      recent: [event("TRANSITION", hostileEntry, `why${HOSTILE}`)],
      server: `http://x${HOSTILE}`,
      width: 1000,
      status: `lost${HOSTILE}`,
    });
    const lines = text.split("\n");
    assert.ok(
      lines.every((l) => !CONTROL.test(l)),
      JSON.stringify(text),
    );
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

  const HELD = { kind: "HOLD", message: "held by alice: vendor swap until 2026-11-22T07:00:00Z" };
  const SLOT = { kind: "CONCURRENCY", message: "max_concurrent_repairs (1) reached" };
  const WAITING = [
    entry("1", { status: "PROCESSING", nodename: "node1", stepStatus: "WATCHING", reason: WATCHING_REASON, wait: HELD }),
    entry("2", { wait: SLOT }),
    entry("3", { status: "SUCCEEDED", wait: SLOT }),
    entry("4", { deleted: true, wait: SLOT }),
  ];

  it("says under each unfinished entry what it waits for, and nothing under a finished or deleted one", () => {
    const lines = screen({ entries: WAITING, width: 250 }).split("\n");
    assert.deepEqual(lines.slice(2, 9), [
      "INDEX  ADDRESS   NODE   OPERATION    STATUS             STEP  STEP STATUS  BACKOFF  SINCE                 REASON",
      `1      10.0.0.1  node1  unreachable  PROCESSING         1/2   WATCHING     -        2026-11-22T05:00:00Z  ${WATCHING_REASON}`,
      `    waits (HOLD): ${HELD.message}`,
      "2      10.0.0.2  -      unreachable  QUEUED             1/2   WAITING      -        2026-11-22T05:00:00Z  added by an operator",
      `    waits (CONCURRENCY): ${SLOT.message}`,
      "3      10.0.0.3  -      unreachable  SUCCEEDED          1/2   WAITING      -        2026-11-22T05:00:00Z  added by an operator",
      "4      10.0.0.4  -      unreachable  QUEUED (deleting)  1/2   WAITING      -        2026-11-22T05:00:00Z  added by an operator",
    ]);
  });

  for (const width of [250, 120, 80, 40]) {
    it(`fits ${width} columns with the waits, each on its line under its row`, () => {
      const lines = screen({ entries: WAITING, width }).split("\n");
      for (const line of lines) assert.ok([...line].length <= width, `${[...line].length} > ${width}: ${line}`);
      for (const [index, wait] of [
        ["1", HELD],
        ["2", SLOT],
      ] as const) {
        const rowAt = lines.findIndex((l) => l.startsWith(`${index} `));
        const note = lines.slice(rowAt + 1, rowAt + 3).find((l) => l.startsWith("    waits ("));
        assert.ok(note !== undefined, `#${index} has its wait under it: ${JSON.stringify(lines)}`);
        const text = `    waits (${wait.kind}): ${wait.message}`;
        assert.ok(note === text || (note.endsWith("…") && text.startsWith(note.slice(0, -1))), `#${index}: ${note}`);
      }
      assert.equal(lines.filter((l) => l.startsWith("    waits (")).length, 2, "none for the finished and the deleted entry");
    });
  }

  describe("applyWaits: the whole list of waits each time", () => {
    const start = new Map(WAITING.map((e) => [e.index, e]));
    const cases: Array<{
      name: string;
      waits: Array<{ index: string; waitingFor: { kind: string; message: string } }>;
      want: Record<string, string | null>;
      changed: string[];
    }> = [
      {
        name: "the same waits change nothing",
        waits: [
          { index: "1", waitingFor: HELD },
          { index: "2", waitingFor: SLOT },
        ],
        want: { 1: "HOLD", 2: "CONCURRENCY", 3: null, 4: null },
        changed: [],
      },
      { name: "an entry left out waits for nothing", waits: [{ index: "1", waitingFor: HELD }], want: { 1: "HOLD", 2: null, 3: null, 4: null }, changed: [] },
      {
        name: "a new kind is a change",
        waits: [
          { index: "1", waitingFor: HELD },
          { index: "2", waitingFor: { kind: "COMMAND", message: "step 1: running the repair command" } },
        ],
        want: { 1: "HOLD", 2: "COMMAND", 3: null, 4: null },
        changed: ["2"],
      },
      {
        name: "a new message of the same kind is a change",
        waits: [
          { index: "1", waitingFor: { kind: "HOLD", message: "held by bob: firmware" } },
          { index: "2", waitingFor: SLOT },
        ],
        want: { 1: "HOLD", 2: "CONCURRENCY", 3: null, 4: null },
        changed: ["1"],
      },
      {
        name: "a wait for an entry not watched is ignored",
        waits: [{ index: "9", waitingFor: SLOT }],
        want: { 1: null, 2: null, 3: null, 4: null },
        changed: [],
      },
      {
        name: "a finished or deleted entry's wait is kept but not announced",
        waits: [
          { index: "3", waitingFor: HELD },
          { index: "4", waitingFor: HELD },
        ],
        want: { 1: null, 2: null, 3: "HOLD", 4: "HOLD" },
        changed: [],
      },
    ];
    for (const c of cases) {
      it(c.name, () => {
        const { entries, changed } = applyWaits(start, c.waits);
        assert.deepEqual(Object.fromEntries([...entries].map(([i, e]) => [i, e.wait?.kind ?? null])), c.want);
        assert.deepEqual(
          changed.map((e) => e.index),
          c.changed,
        );
        assert.equal(entries.size, start.size);
      });
    }
  });

  it("an event keeps the entry's wait until the next list of waits", () => {
    const entries = applyEvent(
      new Map([["2", entry("2", { wait: SLOT })]]),
      event("TRANSITION", entry("2", { status: "PROCESSING" }), "step 1: running the repair command"),
    );
    assert.deepEqual(entries.get("2")?.wait, SLOT);
  });

  it("writes one line per new wait, escaping control characters", () => {
    assert.equal(
      waitLine(entry("2", { wait: SLOT }), "2026-11-22T05:00:02Z"),
      "2026-11-22T05:00:02Z #2 10.0.0.2 unreachable WAITING CONCURRENCY: max_concurrent_repairs (1) reached",
    );
    assert.equal(
      waitLine({ ...hostileEntry, wait: { kind: "HOLD", message: `held by ${HOSTILE}` } }, "T"),
      `T #4 ${ESCAPED} op${ESCAPED} WAITING HOLD: held by ${ESCAPED}`,
    );
    const lines = screen({ entries: [{ ...hostileEntry, wait: { kind: `HOLD${HOSTILE}`, message: HOSTILE } }], width: 300 }).split("\n");
    assert.ok(
      lines.every((l) => !CONTROL.test(l)),
      JSON.stringify(lines),
    );
    assert.ok(lines.includes(`    waits (HOLD${ESCAPED}): ${ESCAPED}`), JSON.stringify(lines));
  });
});
