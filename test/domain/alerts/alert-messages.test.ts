import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatDuration, type Alert } from "../../../src/domain/alerts/alert.js";
import { alertFor, missedEventsAlert, type RepairEntryEventPayload } from "../../../src/domain/alerts/alert-messages.js";

const TIME = "2026-11-22T05:00:00Z";
const UNTIL = "2026-11-22T05:05:00Z";
type Entry = RepairEntryEventPayload["entry"];

type Previous = NonNullable<RepairEntryEventPayload["previous"]>;
/** An event: the entry after (`over`), the entry before (`from`, over the same step PROCESSING/WAITING; null = none). */
function ev(
  kind: RepairEntryEventPayload["kind"],
  over: Partial<Entry>,
  reason: string,
  from: Partial<Previous> | null,
  detail: string | null = null,
  actor = "kintsugi",
): RepairEntryEventPayload {
  const entry: Entry = {
    index: "7",
    address: "10.0.0.1",
    nodename: "node1",
    serial: "a001",
    machineType: "qemu",
    operation: "unreachable",
    status: "PROCESSING",
    step: 0,
    stepStatus: "WAITING",
    drainBackoffCount: 0,
    drainBackoffExpire: null,
    source: "operator",
    ...over,
  };
  const previous = from === null ? null : { status: "PROCESSING" as const, step: entry.step, stepStatus: "WAITING" as const, ...from };
  return { kind, entry, previous, record: { time: TIME, reason, detail, actor } };
}
const QUEUED = { status: "QUEUED", stepStatus: "WAITING" } as const;
const DRAINING = { stepStatus: "DRAINING" } as const;
const WATCHING = { stepStatus: "WATCHING" } as const;
const WAITING = { stepStatus: "WAITING" } as const;

const base = { entry: "7", operation: "unreachable on qemu", step: "1", serial: "a001" };
const STDERR = 'command: ["/bin/power-cycle","10.0.0.1"]\nstderr: BMC of 10.0.0.1 does not answer';

describe("alertFor", () => {
  const cases: Array<[string, RepairEntryEventPayload, Alert | null]> = [
    ["created by an operator: nothing", ev("CREATED", { status: "QUEUED" }, "added by an operator", null), null],
    [
      "created by sabakan: nothing (the start message names the source)",
      ev("CREATED", { status: "QUEUED", source: "sabakan" }, "enqueued by sabakan-triggered repair: machine a001 is UNHEALTHY (for 600 s)", null),
      null,
    ],
    ["a note: nothing", ev("NOTE", { stepStatus: "WATCHING" }, "step 1: repair command succeeded; watching", WATCHING), null],
    [
      "deletion of a repairing entry names who",
      ev("DELETE_REQUESTED", { stepStatus: "WATCHING" }, "deletion requested by an operator", WATCHING, null, "ci-bot"),
      {
        kind: "warning",
        severity: "warning",
        title: "entry 7 for 10.0.0.1 (node1) deleted by ci-bot",
        text: "deletion requested by an operator",
        fields: { ...base, by: "ci-bot", time: TIME },
        group: { key: "warning:deleted by ci-bot", plural: "unfinished entries deleted by ci-bot", subject: "entry 7 for 10.0.0.1 (node1)" },
      },
    ],
    [
      "deletion of a queued entry, not a node, names who",
      ev("DELETE_REQUESTED", { status: "QUEUED", nodename: "", serial: null }, "deletion requested by an operator", QUEUED, null, "bob"),
      {
        kind: "warning",
        severity: "warning",
        title: "entry 7 for 10.0.0.1 deleted by bob",
        text: "deletion requested by an operator",
        fields: { entry: "7", operation: "unreachable on qemu", step: "1", by: "bob", time: TIME },
        group: { key: "warning:deleted by bob", plural: "unfinished entries deleted by bob", subject: "entry 7 for 10.0.0.1" },
      },
    ],
    [
      "deletion of a succeeded entry: housekeeping, nothing",
      ev("DELETE_REQUESTED", { status: "SUCCEEDED" }, "deletion of finished entries requested by an operator", { status: "SUCCEEDED" }, null, "ci-bot"),
      null,
    ],
    [
      "deletion of a failed entry: housekeeping, nothing",
      ev("DELETE_REQUESTED", { status: "FAILED" }, "deletion of finished entries requested by an operator", { status: "FAILED" }, null, "ci-bot"),
      null,
    ],
    [
      "dequeued after failing: nothing (the failure was announced)",
      ev("DEQUEUED", { status: "FAILED" }, "dequeued after deletion was requested", { status: "FAILED" }),
      null,
    ],
    [
      "back-off reset names who",
      ev("BACKOFF_RESET", {}, "drain back-off reset by an operator", WAITING, null, "alice"),
      {
        kind: "info",
        severity: "info",
        title: "drain back-off of entry 7 for 10.0.0.1 (node1) reset by alice",
        text: "drain back-off reset by an operator",
        fields: { ...base, by: "alice", time: TIME },
        group: { key: "info:back-off reset by alice", plural: "drain back-offs reset by alice", subject: "entry 7 for 10.0.0.1 (node1)" },
      },
    ],
    [
      "step 1 starts with a drain",
      ev("TRANSITION", { stepStatus: "DRAINING" }, "step 1: draining node node1", QUEUED),
      {
        kind: "started",
        severity: "info",
        title: "repair started: 10.0.0.1 (node1)",
        text: "step 1: draining node node1",
        fields: { ...base, source: "operator", time: TIME },
        group: { key: "started:repair started", plural: "repairs started", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "step 1 starts without a drain, sabakan's entry, not a node",
      ev("TRANSITION", { stepStatus: "WATCHING", nodename: "", source: "sabakan", serial: null }, "step 1: running the repair command", QUEUED),
      {
        kind: "started",
        severity: "info",
        title: "repair started: 10.0.0.1",
        text: "step 1: running the repair command",
        fields: { entry: "7", operation: "unreachable on qemu", step: "1", source: "sabakan", time: TIME },
        group: { key: "started:repair started", plural: "repairs started", subject: "10.0.0.1" },
      },
    ],
    ["the drain completed: routine", ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: drain completed; running the repair command", DRAINING), null],
    [
      "no longer a node during the drain: routine",
      ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: the machine is no longer a node; running the repair command", DRAINING),
      null,
    ],
    [
      "moving to step 2: routine (its start follows)",
      ev("TRANSITION", { step: 1 }, "still unhealthy after watching 30s; moving to step 2", { step: 0, stepStatus: "WATCHING" }),
      null,
    ],
    [
      "step 2 starts",
      ev("TRANSITION", { step: 1, stepStatus: "WATCHING" }, "step 2: running the repair command", WAITING),
      {
        kind: "started",
        severity: "info",
        title: "repair step 2 started: 10.0.0.1 (node1)",
        text: "step 2: running the repair command",
        fields: { ...base, step: "2", source: "operator", time: TIME },
        group: { key: "started:repair step 2 started", plural: "repairs started step 2", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "the drain is retried after a back-off: quiet",
      ev("TRANSITION", { stepStatus: "DRAINING", drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "step 1: draining node node1", WAITING),
      null,
    ],
    [
      "a refused eviction backs off",
      ev(
        "TRANSITION",
        { drainBackoffCount: 1, drainBackoffExpire: UNTIL },
        `drain failed: dry-run eviction of db/mysql-0 was refused: budget; backing off (count 1) until ${UNTIL}`,
        DRAINING,
      ),
      {
        kind: "warning",
        severity: "warning",
        title: "drain backed off: 10.0.0.1 (node1)",
        text: `drain failed: dry-run eviction of db/mysql-0 was refused: budget; backing off (count 1) until ${UNTIL}`,
        fields: { ...base, "back-offs": "1", "retry after": UNTIL, time: TIME },
        group: { key: "warning:drain backed off", plural: "drains backed off", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "a drain time-out backs off",
      ev("TRANSITION", { drainBackoffCount: 2, drainBackoffExpire: UNTIL }, `drain timed out after 600s; backing off until ${UNTIL}`, DRAINING),
      {
        kind: "warning",
        severity: "warning",
        title: "drain backed off: 10.0.0.1 (node1)",
        text: `drain timed out after 600s; backing off until ${UNTIL}`,
        fields: { ...base, "back-offs": "2", "retry after": UNTIL, time: TIME },
        group: { key: "warning:drain backed off", plural: "drains backed off", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "a drain abandoned by disabling the queue backs off",
      ev("TRANSITION", { drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "drain abandoned: the repair queue is disabled", DRAINING),
      {
        kind: "warning",
        severity: "warning",
        title: "drain backed off: 10.0.0.1 (node1)",
        text: "drain abandoned: the repair queue is disabled",
        fields: { ...base, "back-offs": "1", "retry after": UNTIL, time: TIME },
        group: { key: "warning:drain backed off", plural: "drains backed off", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "moving on with an old back-off expiry still set: not a back-off",
      ev("TRANSITION", { step: 1, drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "still unhealthy; moving to step 2", { step: 0, stepStatus: "WATCHING" }),
      null,
    ],
    [
      "succeeded",
      ev("TRANSITION", { status: "SUCCEEDED", stepStatus: "WATCHING" }, "the health check reports the machine healthy", WATCHING),
      {
        kind: "succeeded",
        severity: "info",
        title: "repair succeeded: 10.0.0.1 (node1)",
        text: "the health check reports the machine healthy",
        fields: { ...base, time: TIME },
        group: { key: "succeeded:repair succeeded", plural: "repairs succeeded", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "failed: the reason, and the command's output as detail",
      ev("TRANSITION", { status: "FAILED", stepStatus: "WATCHING" }, "step 1: repair command failed: exit code 3", WATCHING, STDERR),
      {
        kind: "failed",
        severity: "critical",
        title: "repair failed: 10.0.0.1 (node1)",
        text: "step 1: repair command failed: exit code 3",
        fields: { ...base, detail: STDERR, time: TIME },
        group: { key: "failed:repair failed", plural: "repairs failed", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "failed after the last step: no detail",
      ev("TRANSITION", { status: "FAILED", stepStatus: "WATCHING" }, "still unhealthy after watching 30s after the last step (1)", WATCHING),
      {
        kind: "failed",
        severity: "critical",
        title: "repair failed: 10.0.0.1 (node1)",
        text: "still unhealthy after watching 30s after the last step (1)",
        fields: { ...base, time: TIME },
        group: { key: "failed:repair failed", plural: "repairs failed", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "a back-off is told by its states, whatever the reason says",
      ev("TRANSITION", { drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "eviction gave up", DRAINING),
      {
        kind: "warning",
        severity: "warning",
        title: "drain backed off: 10.0.0.1 (node1)",
        text: "eviction gave up",
        fields: { ...base, "back-offs": "1", "retry after": UNTIL, time: TIME },
        group: { key: "warning:drain backed off", plural: "drains backed off", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "a step start is told by its states, whatever the reason says",
      ev("TRANSITION", { stepStatus: "WATCHING" }, "repairing", WAITING),
      {
        kind: "started",
        severity: "info",
        title: "repair started: 10.0.0.1 (node1)",
        text: "repairing",
        fields: { ...base, source: "operator", time: TIME },
        group: { key: "started:repair started", plural: "repairs started", subject: "10.0.0.1 (node1)" },
      },
    ],
    [
      "watching to watching (a renamed node): not a start, whatever the reason says",
      ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: running the repair command", WATCHING),
      null,
    ],
    ["a transition without a previous state: nothing", ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: running the repair command", null), null],
  ];
  for (const [name, event, expected] of cases) it(name, () => assert.deepEqual(alertFor(event), expected));

  const requesterCases: Array<[string, RepairEntryEventPayload, string | null, Record<string, string> | undefined]> = [
    [
      "a start names the token that requested it",
      ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: running the repair command", WAITING),
      "alice",
      { "requested by": "alice" },
    ],
    ["a success names it", ev("TRANSITION", { status: "SUCCEEDED", stepStatus: "WATCHING" }, "healthy", WATCHING), "alice", { "requested by": "alice" }],
    ["a failure names it", ev("TRANSITION", { status: "FAILED", stepStatus: "WATCHING" }, "exit code 3", WATCHING), "ci-bot", { "requested by": "ci-bot" }],
    ["a back-off names it", ev("TRANSITION", { drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "refused", DRAINING), "ci-bot", { "requested by": "ci-bot" }],
    [
      "sabakan's entry: the source says it already",
      ev("TRANSITION", { stepStatus: "WATCHING", source: "sabakan" }, "step 1: running the repair command", WAITING),
      "sabakan",
      undefined,
    ],
    ["a requester not known: nothing", ev("TRANSITION", { status: "SUCCEEDED", stepStatus: "WATCHING" }, "healthy", WATCHING), null, undefined],
  ];
  for (const [name, event, requestedBy, expected] of requesterCases) {
    it(`who requested the repair: ${name}`, () => {
      const fields = alertFor(event, requestedBy)?.fields ?? {};
      assert.deepEqual("requested by" in fields ? { "requested by": fields["requested by"] } : undefined, expected);
    });
  }

  it("clips a long detail to 600 characters", () => {
    const alert = alertFor(ev("TRANSITION", { status: "FAILED" }, "step 1: repair command failed: exit code 1", WATCHING, "x".repeat(2000)));
    assert.equal(alert?.fields["detail"], `${"x".repeat(600)}…`);
  });
});

describe("missedEventsAlert and formatDuration", () => {
  const from = Date.UTC(2026, 10, 22, 5, 0, 0);
  it("says where it reconnected, after how long, and which span to check", () => {
    assert.deepEqual(missedEventsAlert("http://127.0.0.1:10180", from, from + 95_000, "reconnected"), {
      kind: "warning",
      severity: "warning",
      title: "kintsugi alerts may have missed events",
      fields: {},
      text: "kintsugi alerts: reconnected to http://127.0.0.1:10180 after 1m 35s; events between 2026-11-22T05:00:00.000Z and 2026-11-22T05:01:35.000Z may have been missed — check `kintsugi repair-queue list`",
    });
  });
  it("says when the subscription fell behind", () => {
    assert.match(
      missedEventsAlert("http://k", from, from + 1000, "fell-behind").text,
      /^kintsugi alerts: the subscription to http:\/\/k fell behind and was restarted; events between/,
    );
  });
  const durations: Array<[number, string]> = [
    [0, "0s"],
    [400, "0s"],
    [42_000, "42s"],
    [185_000, "3m 5s"],
    [7_200_000, "2h 0m"],
    [-5, "0s"],
  ];
  for (const [ms, text] of durations) it(`${ms} ms is ${text}`, () => assert.equal(formatDuration(ms), text));
});
