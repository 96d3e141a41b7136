import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  alertFor,
  alertForOutcome,
  formatDuration,
  formatJson,
  formatMattermost,
  formatSlack,
  INITIAL_OUTCOME_STATE,
  missedEventsAlert,
  type Alert,
  type AutoRepairOutcomePayload,
  type RepairEntryEventPayload,
} from "../../src/domain/alert-messages.js";

const TIME = "2026-11-22T05:00:00Z";
const UNTIL = "2026-11-22T05:05:00Z";
type Entry = RepairEntryEventPayload["entry"];

type Previous = NonNullable<RepairEntryEventPayload["previous"]>;
/** An event: the entry after (`over`), the entry before (`from`, over the same step PROCESSING/WAITING; null = none). */
function ev(kind: RepairEntryEventPayload["kind"], over: Partial<Entry>, reason: string, from: Partial<Previous> | null, detail: string | null = null, actor = "kintsugi"): RepairEntryEventPayload {
  const entry: Entry = {
    index: "7", address: "10.0.0.1", nodename: "node1", serial: "a001", machineType: "qemu", operation: "unreachable",
    status: "PROCESSING", step: 0, stepStatus: "WAITING", drainBackoffCount: 0, drainBackoffExpire: null, source: "operator", ...over,
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
    ["created by sabakan: nothing (the start message names the source)", ev("CREATED", { status: "QUEUED", source: "sabakan" }, "enqueued by sabakan-triggered repair: machine a001 is UNHEALTHY (for 600 s)", null), null],
    ["a note: nothing", ev("NOTE", { stepStatus: "WATCHING" }, "step 1: repair command succeeded; watching", WATCHING), null],
    ["deletion of a repairing entry names who", ev("DELETE_REQUESTED", { stepStatus: "WATCHING" }, "deletion requested by an operator", WATCHING, null, "ci-bot"), {
      severity: "warning", title: "entry 7 for 10.0.0.1 (node1) deleted by ci-bot", text: "deletion requested by an operator", fields: { ...base, by: "ci-bot", time: TIME },
    }],
    ["deletion of a queued entry, not a node, names who", ev("DELETE_REQUESTED", { status: "QUEUED", nodename: "", serial: null }, "deletion requested by an operator", QUEUED, null, "bob"), {
      severity: "warning", title: "entry 7 for 10.0.0.1 deleted by bob", text: "deletion requested by an operator", fields: { entry: "7", operation: "unreachable on qemu", step: "1", by: "bob", time: TIME },
    }],
    ["deletion of a succeeded entry: housekeeping, nothing", ev("DELETE_REQUESTED", { status: "SUCCEEDED" }, "deletion of finished entries requested by an operator", { status: "SUCCEEDED" }, null, "ci-bot"), null],
    ["deletion of a failed entry: housekeeping, nothing", ev("DELETE_REQUESTED", { status: "FAILED" }, "deletion of finished entries requested by an operator", { status: "FAILED" }, null, "ci-bot"), null],
    ["dequeued after failing: nothing (the failure was announced)", ev("DEQUEUED", { status: "FAILED" }, "dequeued after deletion was requested", { status: "FAILED" }), null],
    ["back-off reset names who", ev("BACKOFF_RESET", {}, "drain back-off reset by an operator", WAITING, null, "alice"), {
      severity: "info", title: "drain back-off of entry 7 for 10.0.0.1 (node1) reset by alice", text: "drain back-off reset by an operator", fields: { ...base, by: "alice", time: TIME },
    }],
    ["step 1 starts with a drain", ev("TRANSITION", { stepStatus: "DRAINING" }, "step 1: draining node node1", QUEUED), {
      severity: "info", title: "repair started: 10.0.0.1 (node1)", text: "step 1: draining node node1", fields: { ...base, source: "operator", time: TIME },
    }],
    ["step 1 starts without a drain, sabakan's entry, not a node", ev("TRANSITION", { stepStatus: "WATCHING", nodename: "", source: "sabakan", serial: null }, "step 1: running the repair command", QUEUED), {
      severity: "info", title: "repair started: 10.0.0.1", text: "step 1: running the repair command", fields: { entry: "7", operation: "unreachable on qemu", step: "1", source: "sabakan", time: TIME },
    }],
    ["the drain completed: routine", ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: drain completed; running the repair command", DRAINING), null],
    ["no longer a node during the drain: routine", ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: the machine is no longer a node; running the repair command", DRAINING), null],
    ["moving to step 2: routine (its start follows)", ev("TRANSITION", { step: 1 }, "still unhealthy after watching 30s; moving to step 2", { step: 0, stepStatus: "WATCHING" }), null],
    ["step 2 starts", ev("TRANSITION", { step: 1, stepStatus: "WATCHING" }, "step 2: running the repair command", WAITING), {
      severity: "info", title: "repair step 2 started: 10.0.0.1 (node1)", text: "step 2: running the repair command", fields: { ...base, step: "2", source: "operator", time: TIME },
    }],
    ["the drain is retried after a back-off: quiet", ev("TRANSITION", { stepStatus: "DRAINING", drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "step 1: draining node node1", WAITING), null],
    ["a refused eviction backs off", ev("TRANSITION", { drainBackoffCount: 1, drainBackoffExpire: UNTIL }, `drain failed: dry-run eviction of db/mysql-0 was refused: budget; backing off (count 1) until ${UNTIL}`, DRAINING), {
      severity: "warning", title: "drain backed off: 10.0.0.1 (node1)", text: `drain failed: dry-run eviction of db/mysql-0 was refused: budget; backing off (count 1) until ${UNTIL}`,
      fields: { ...base, "back-offs": "1", "retry after": UNTIL, time: TIME },
    }],
    ["a drain time-out backs off", ev("TRANSITION", { drainBackoffCount: 2, drainBackoffExpire: UNTIL }, `drain timed out after 600s; backing off until ${UNTIL}`, DRAINING), {
      severity: "warning", title: "drain backed off: 10.0.0.1 (node1)", text: `drain timed out after 600s; backing off until ${UNTIL}`, fields: { ...base, "back-offs": "2", "retry after": UNTIL, time: TIME },
    }],
    ["a drain abandoned by disabling the queue backs off", ev("TRANSITION", { drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "drain abandoned: the repair queue is disabled", DRAINING), {
      severity: "warning", title: "drain backed off: 10.0.0.1 (node1)", text: "drain abandoned: the repair queue is disabled", fields: { ...base, "back-offs": "1", "retry after": UNTIL, time: TIME },
    }],
    ["moving on with an old back-off expiry still set: not a back-off", ev("TRANSITION", { step: 1, drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "still unhealthy; moving to step 2", { step: 0, stepStatus: "WATCHING" }), null],
    ["succeeded", ev("TRANSITION", { status: "SUCCEEDED", stepStatus: "WATCHING" }, "the health check reports the machine healthy", WATCHING), {
      severity: "info", title: "repair succeeded: 10.0.0.1 (node1)", text: "the health check reports the machine healthy", fields: { ...base, time: TIME },
    }],
    ["failed: the reason, and the command's output as detail", ev("TRANSITION", { status: "FAILED", stepStatus: "WATCHING" }, "step 1: repair command failed: exit code 3", WATCHING, STDERR), {
      severity: "critical", title: "repair failed: 10.0.0.1 (node1)", text: "step 1: repair command failed: exit code 3", fields: { ...base, detail: STDERR, time: TIME },
    }],
    ["failed after the last step: no detail", ev("TRANSITION", { status: "FAILED", stepStatus: "WATCHING" }, "still unhealthy after watching 30s after the last step (1)", WATCHING), {
      severity: "critical", title: "repair failed: 10.0.0.1 (node1)", text: "still unhealthy after watching 30s after the last step (1)", fields: { ...base, time: TIME },
    }],
    ["a back-off is told by its states, whatever the reason says", ev("TRANSITION", { drainBackoffCount: 1, drainBackoffExpire: UNTIL }, "eviction gave up", DRAINING), {
      severity: "warning", title: "drain backed off: 10.0.0.1 (node1)", text: "eviction gave up", fields: { ...base, "back-offs": "1", "retry after": UNTIL, time: TIME },
    }],
    ["a step start is told by its states, whatever the reason says", ev("TRANSITION", { stepStatus: "WATCHING" }, "repairing", WAITING), {
      severity: "info", title: "repair started: 10.0.0.1 (node1)", text: "repairing", fields: { ...base, source: "operator", time: TIME },
    }],
    ["watching to watching (a renamed node): not a start, whatever the reason says", ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: running the repair command", WATCHING), null],
    ["a transition without a previous state: nothing", ev("TRANSITION", { stepStatus: "WATCHING" }, "step 1: running the repair command", null), null],
  ];
  for (const [name, event, expected] of cases) it(name, () => assert.deepEqual(alertFor(event), expected));

  it("clips a long detail to 600 characters", () => {
    const alert = alertFor(ev("TRANSITION", { status: "FAILED" }, "step 1: repair command failed: exit code 1", WATCHING, "x".repeat(2000)));
    assert.equal(alert?.fields["detail"], `${"x".repeat(600)}…`);
  });
});

const poll = (sequence: number, over: Partial<AutoRepairOutcomePayload> = {}): AutoRepairOutcomePayload => ({
  sequence: String(sequence), time: `2026-11-22T05:0${sequence}:00Z`, trigger: "schedule", machinesSeen: 4, shortCircuit: null, error: null, ...over,
});
const failed = (n: number) => poll(n, { error: "sabakan answered HTTP 503" });
const capped = (n: number) => poll(n, { shortCircuit: { existingEntries: 3, candidates: 2, limit: 4 } });

describe("alertForOutcome", () => {
  const sequences: Array<[string, AutoRepairOutcomePayload[], Array<string | null>, number?]> = [
    ["a successful poll: nothing", [poll(1)], [null]],
    ["two failures, then a success: nothing", [failed(1), failed(2), poll(3)], [null, null, null]],
    ["three failures alert once; the fourth is quiet; a success recovers", [failed(1), failed(2), failed(3), failed(4), poll(5)],
      [null, null, "auto-repair: 3 sabakan polls failed in a row", null, "auto-repair: sabakan polls succeed again"]],
    ["threshold 1: the first failure alerts", [failed(1), failed(2), poll(3)], ["auto-repair: 1 sabakan polls failed in a row", null, "auto-repair: sabakan polls succeed again"], 1],
    ["a short-circuit alerts once while it lasts, and once when it clears", [capped(1), capped(2), poll(3)],
      ["auto-repair short-circuited: too many repair requests", null, "auto-repair no longer short-circuited"]],
    ["a failed poll neither clears nor repeats a short-circuit", [capped(1), failed(2), capped(3)], ["auto-repair short-circuited: too many repair requests", null, null]],
    ["recovering into a short-circuit: one message", [failed(1), failed(2), failed(3), capped(4)],
      [null, null, "auto-repair: 3 sabakan polls failed in a row", "auto-repair: sabakan polls succeed again; auto-repair short-circuited: too many repair requests"]],
  ];
  for (const [name, outcomes, titles, threshold] of sequences) {
    it(name, () => {
      let state = INITIAL_OUTCOME_STATE;
      const got = outcomes.map((o) => {
        const result = alertForOutcome(o, state, threshold);
        state = result.state;
        return result.alert?.title ?? null;
      });
      assert.deepEqual(got, titles);
    });
  }

  it("the failure alert says since when and the latest error", () => {
    let state = INITIAL_OUTCOME_STATE;
    for (const o of [failed(1), failed(2)]) state = alertForOutcome(o, state).state;
    assert.deepEqual(alertForOutcome(failed(3), state).alert, {
      severity: "warning", title: "auto-repair: 3 sabakan polls failed in a row", text: "latest error: sabakan answered HTTP 503",
      fields: { "failing since": "2026-11-22T05:01:00Z", poll: "3", trigger: "schedule", time: "2026-11-22T05:03:00Z" },
    });
  });

  it("the short-circuit alert gives the counts", () => {
    assert.deepEqual(alertForOutcome(capped(1), INITIAL_OUTCOME_STATE).alert, {
      severity: "warning", title: "auto-repair short-circuited: too many repair requests",
      text: "enqueued nothing: 3 entries in the queue + 2 candidates > maximum-repair-queue-entries 4",
      fields: { "existing entries": "3", candidates: "2", limit: "4", "machines seen": "4", poll: "1", trigger: "schedule", time: "2026-11-22T05:01:00Z" },
    });
  });
});

describe("missedEventsAlert and formatDuration", () => {
  const from = Date.UTC(2026, 10, 22, 5, 0, 0);
  it("says where it reconnected, after how long, and which span to check", () => {
    assert.deepEqual(missedEventsAlert("http://127.0.0.1:10180", from, from + 95_000, "reconnected"), {
      severity: "warning", title: "kintsugi alerts may have missed events", fields: {},
      text: "kintsugi alerts: reconnected to http://127.0.0.1:10180 after 1m 35s; events between 2026-11-22T05:00:00.000Z and 2026-11-22T05:01:35.000Z may have been missed — check `kintsugi repair-queue list`",
    });
  });
  it("says when the subscription fell behind", () => {
    assert.match(missedEventsAlert("http://k", from, from + 1000, "fell-behind").text, /^kintsugi alerts: the subscription to http:\/\/k fell behind and was restarted; events between/);
  });
  const durations: Array<[number, string]> = [[0, "0s"], [400, "0s"], [42_000, "42s"], [185_000, "3m 5s"], [7_200_000, "2h 0m"], [-5, "0s"]];
  for (const [ms, text] of durations) it(`${ms} ms is ${text}`, () => assert.equal(formatDuration(ms), text));
});

describe("formatters", () => {
  const alert: Alert = { severity: "critical", title: "repair failed: 10.0.0.1", text: "exit code 3 <stderr> & more", fields: { entry: "7", detail: "x".repeat(41) } };
  const bare: Alert = { severity: "warning", title: "kintsugi alerts may have missed events", text: "check it", fields: {} };
  const cases: Array<[string, () => unknown, unknown]> = [
    ["slack: text with icon and escaping, fields in one coloured attachment", () => formatSlack(alert), {
      text: ":rotating_light: *repair failed: 10.0.0.1*\nexit code 3 &lt;stderr&gt; &amp; more",
      attachments: [{ color: "#e01e5a", fallback: "repair failed: 10.0.0.1: exit code 3 <stderr> & more", fields: [{ title: "entry", value: "7", short: true }, { title: "detail", value: "x".repeat(41), short: false }] }],
    }],
    ["slack without fields: text only", () => formatSlack(bare), { text: ":warning: *kintsugi alerts may have missed events*\ncheck it" }],
    ["mattermost: posted as kintsugi, Markdown, a Slack-style attachment", () => formatMattermost(alert), {
      username: "kintsugi", text: ":rotating_light: **repair failed: 10.0.0.1**\nexit code 3 <stderr> & more",
      attachments: [{ color: "#e01e5a", fallback: "repair failed: 10.0.0.1: exit code 3 <stderr> & more", fields: [{ title: "entry", value: "7", short: true }, { title: "detail", value: "x".repeat(41), short: false }] }],
    }],
    ["mattermost without fields", () => formatMattermost(bare), { username: "kintsugi", text: ":warning: **kintsugi alerts may have missed events**\ncheck it" }],
    ["json: the alert and its source", () => formatJson(alert), { source: "kintsugi", ...alert }],
  ];
  for (const [name, format, expected] of cases) it(name, () => assert.deepEqual(format(), expected));
});
