import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Alert } from "../../../src/domain/alerts/alert.js";
import {
  addAlert,
  dueGroups,
  flushAll,
  groupAlert,
  MAX_WAITING_ALERTS,
  nextDue,
  NO_PENDING_GROUPS,
  waitingAlerts,
  type GroupingState,
} from "../../../src/domain/alerts/alert-grouping.js";

const NOW = Date.UTC(2026, 10, 22, 5, 0, 0);
const WINDOW = 5000;
const time = (s: number) => new Date(NOW + s * 1000).toISOString();

const succeeded = (i: number, at = 0, text = "the health check reports the machine healthy"): Alert => ({
  kind: "succeeded",
  severity: "info",
  title: `repair succeeded: 10.0.0.${i}`,
  text,
  fields: { entry: String(i), operation: "unhealthy on qemu", step: "1", time: time(at) },
  group: { key: "succeeded:repair succeeded", plural: "repairs succeeded", subject: `10.0.0.${i}` },
});
const failed = (i: number, at = 0): Alert => ({
  kind: "failed",
  severity: "critical",
  title: `repair failed: 10.0.0.${i}`,
  text: `exit code ${i}`,
  fields: { entry: String(i), operation: "unhealthy on qemu", step: "1", time: time(at) },
  group: { key: "failed:repair failed", plural: "repairs failed", subject: `10.0.0.${i}` },
});
const held: Alert = {
  kind: "held",
  severity: "warning",
  title: "auto-repair holds back 4 machines: 4 in rack 3 over the per-rack limit",
  text: "rack 3",
  fields: {},
};

/** Feeds alerts at their times (ms after NOW), then lets the clock run to `until`: returns the titles posted at each step. */
function run(steps: Array<[number, Alert]>, until: number, windowMs = WINDOW): Array<[number, string]> {
  let state: GroupingState = NO_PENDING_GROUPS;
  const posted: Array<[number, string]> = [];
  const tick = (at: number) => {
    const step = dueGroups(state, NOW + at, windowMs);
    state = step.state;
    for (const a of step.post) posted.push([at, a.title]);
  };
  for (const [at, alert] of steps) {
    tick(at);
    const step = addAlert(state, alert, NOW + at, windowMs);
    state = step.state;
    for (const a of step.post) posted.push([at, a.title]);
  }
  for (let at = steps.at(-1)?.[0] ?? 0; at <= until; at += 100) tick(at);
  return posted;
}

describe("alert grouping", () => {
  const cases: Array<[string, Array<[number, Alert]>, number, Array<[number, string]>, number?]> = [
    ["a lone alert is posted as it is when its window ends", [[0, succeeded(1)]], 6000, [[5000, "repair succeeded: 10.0.0.1"]]],
    [
      "alerts of one kind within the window: one message when it ends",
      [
        [0, succeeded(1)],
        [1000, succeeded(2)],
        [4900, succeeded(3)],
      ],
      6000,
      [[5000, "3 repairs succeeded: 10.0.0.1, 10.0.0.2, 10.0.0.3"]],
    ],
    [
      "one after the window opens the next group",
      [
        [0, succeeded(1)],
        [1000, succeeded(2)],
        [5200, succeeded(3)],
      ],
      11000,
      [
        [5200, "2 repairs succeeded: 10.0.0.1, 10.0.0.2"],
        [10200, "repair succeeded: 10.0.0.3"],
      ],
    ],
    [
      "kinds are grouped apart and posted oldest group first",
      [
        [0, succeeded(1)],
        [100, failed(2)],
        [200, succeeded(3)],
        [300, failed(4)],
      ],
      6000,
      [
        [5000, "2 repairs succeeded: 10.0.0.1, 10.0.0.3"],
        [5100, "2 repairs failed: 10.0.0.2, 10.0.0.4"],
      ],
    ],
    [
      "a hold is never grouped nor delayed, and what waits goes out before it",
      [
        [0, succeeded(1)],
        [100, failed(2)],
        [200, held],
        [300, succeeded(3)],
      ],
      6000,
      [
        [200, "repair succeeded: 10.0.0.1"],
        [200, "repair failed: 10.0.0.2"],
        [200, held.title],
        [5300, "repair succeeded: 10.0.0.3"],
      ],
    ],
    [
      "window 0: every alert at once, on its own",
      [
        [0, succeeded(1)],
        [0, succeeded(2)],
        [0, held],
      ],
      100,
      [
        [0, "repair succeeded: 10.0.0.1"],
        [0, "repair succeeded: 10.0.0.2"],
        [0, held.title],
      ],
      0,
    ],
  ];
  for (const [name, steps, until, expected, windowMs] of cases) it(name, () => assert.deepEqual(run(steps, until, windowMs), expected));

  it("no alert waits longer than the window, however busy, and none is lost", () => {
    const steps: Array<[number, Alert]> = Array.from({ length: 200 }, (_, i) => [i * 137, i % 3 === 0 ? failed(i, i) : succeeded(i, i)]);
    let state: GroupingState = NO_PENDING_GROUPS;
    let posted = 0;
    const count = (alerts: readonly Alert[]) => alerts.reduce((n, a) => n + Number(a.fields["count"] ?? 1), 0);
    for (let at = 0; at <= 200 * 137 + WINDOW; at += 50) {
      const due = dueGroups(state, NOW + at, WINDOW);
      state = due.state;
      posted += count(due.post);
      // An alert joins a group opened before it came, so it has waited no longer than its group is old.
      for (const g of state) assert.ok(NOW + at - g.opened < WINDOW, `a group opened ${NOW + at - g.opened} ms ago still waits`);
      for (const [, alert] of steps.filter(([t]) => t > at - 50 && t <= at)) {
        const step = addAlert(state, alert, NOW + at, WINDOW);
        state = step.state;
        posted += count(step.post);
      }
    }
    assert.equal(state.length, 0, "everything was posted");
    assert.equal(posted, 200);
  });

  it(`a flood within a long window is posted early: never more than ${MAX_WAITING_ALERTS} alerts wait, and none is lost`, () => {
    const hour = 3_600_000;
    let state: GroupingState = NO_PENDING_GROUPS;
    const posted: Alert[] = [];
    // Distinct actors' deletions are groups of their own: a hostile server could send any number of them.
    for (let i = 0; i < 2 * MAX_WAITING_ALERTS + 10; i++) {
      const alert =
        i % 2 === 0 ? succeeded(i) : { ...failed(i), group: { key: `warning:deleted by actor-${i}`, plural: `deleted by actor-${i}`, subject: String(i) } };
      const step = addAlert(state, alert, NOW + i, hour);
      state = step.state;
      posted.push(...step.post);
      assert.ok(waitingAlerts(state) <= MAX_WAITING_ALERTS, `${waitingAlerts(state)} alerts wait`);
    }
    assert.ok(posted.length > 0, "posted before the window ended");
    const count = (alerts: readonly Alert[]) => alerts.reduce((n, a) => n + Number(a.fields["count"] ?? 1), 0);
    assert.equal(count(posted) + waitingAlerts(state), 2 * MAX_WAITING_ALERTS + 10);
    assert.equal(nextDue(state, hour), NOW + 2 * MAX_WAITING_ALERTS + hour, "the alert that found the groups full opened the next");
  });

  it("a group's message: count, the machines (at most 8 named), the common text once, shared fields and the span of times", () => {
    const alerts = Array.from({ length: 12 }, (_, i) => succeeded(i + 1, i));
    assert.deepEqual(groupAlert({ key: "k", opened: NOW, alerts: [alerts[0] as Alert, ...alerts.slice(1)] }), {
      kind: "succeeded",
      severity: "info",
      title: "12 repairs succeeded: 10.0.0.1, 10.0.0.2, 10.0.0.3, 10.0.0.4, 10.0.0.5, 10.0.0.6, 10.0.0.7, 10.0.0.8 (and 4 more)",
      text: "the health check reports the machine healthy",
      fields: { count: "12", operation: "unhealthy on qemu", step: "1", from: time(0), to: time(11) },
    });
  });

  it("texts that differ are listed one per machine, at most 20", () => {
    const alerts = Array.from({ length: 23 }, (_, i) => failed(i + 1));
    const grouped = groupAlert({ key: "k", opened: NOW, alerts: [alerts[0] as Alert, ...alerts.slice(1)] });
    const lines = grouped.text.split("\n");
    assert.equal(lines.length, 21);
    assert.deepEqual([lines[0], lines[19], lines[20]], ["10.0.0.1: exit code 1", "10.0.0.20: exit code 20", "… and 3 more"]);
    assert.equal(grouped.severity, "critical");
    assert.deepEqual(grouped.fields, { count: "23", operation: "unhealthy on qemu", step: "1", time: time(0) });
  });

  it("nextDue is when the oldest group's window ends; flushAll posts everything at once", () => {
    let state = addAlert(NO_PENDING_GROUPS, succeeded(1), NOW, WINDOW).state;
    state = addAlert(state, failed(2), NOW + 1000, WINDOW).state;
    assert.equal(nextDue(state, WINDOW), NOW + WINDOW);
    assert.equal(nextDue(NO_PENDING_GROUPS, WINDOW), null);
    const flushed = flushAll(state);
    assert.deepEqual(
      flushed.post.map((a) => a.title),
      ["repair succeeded: 10.0.0.1", "repair failed: 10.0.0.2"],
    );
    assert.deepEqual(flushed.state, []);
  });
});
