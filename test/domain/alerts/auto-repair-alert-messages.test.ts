import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { alertForOutcome, INITIAL_OUTCOME_STATE, type AutoRepairOutcomePayload } from "../../../src/domain/alerts/auto-repair-alert-messages.js";

type Skip = AutoRepairOutcomePayload["skipped"][number];
const time = (n: number) => `2026-11-22T05:${String(n).padStart(2, "0")}:00Z`;
const poll = (sequence: number, over: Partial<AutoRepairOutcomePayload> = {}): AutoRepairOutcomePayload => ({
  sequence: String(sequence),
  time: time(sequence),
  trigger: "schedule",
  machinesSeen: 12,
  skipped: [],
  shortCircuit: null,
  error: null,
  ...over,
});
const many = (n: number, kind: string, rack: number | null): Skip[] => Array.from({ length: n }, () => ({ kind, rack }));
const failed = (n: number) => poll(n, { error: "sabakan answered HTTP 503" });
/** A poll holding `n` machines of `rack` back by the per-rack limit (and `also` skipped for other reasons). */
const rack = (n: number, r: number, count = 4, also: Skip[] = []) => poll(n, { skipped: [...many(count, "RACK_LIMIT", r), ...also] });
const capped = (n: number, also: Skip[] = []) =>
  poll(n, {
    skipped: [{ kind: "QUEUE_LIMIT", rack: 1 }, { kind: "QUEUE_LIMIT", rack: 2 }, ...also],
    shortCircuit: { existingEntries: 3, candidates: 2, limit: 4 },
  });
const rebooting = (n: number, r: number) => poll(n, { skipped: [{ kind: "REBOOTING", rack: r }] });

const HELD_RACK_3 = "auto-repair defers 4 machines: 4 in rack 3 over the per-rack limit";
const CLEARED = "auto-repair no longer defers machines";

function titles(outcomes: AutoRepairOutcomePayload[], threshold?: number): Array<string | null> {
  let state = INITIAL_OUTCOME_STATE;
  return outcomes.map((o) => {
    const result = alertForOutcome(o, state, threshold);
    state = result.state;
    return result.alert?.title ?? null;
  });
}

describe("alertForOutcome: failed polls", () => {
  const sequences: Array<[string, AutoRepairOutcomePayload[], Array<string | null>, number?]> = [
    ["a successful poll holding nothing: nothing", [poll(1)], [null]],
    ["two failures, then a success: nothing", [failed(1), failed(2), poll(3)], [null, null, null]],
    [
      "three failures alert once; the fourth is quiet; a success recovers",
      [failed(1), failed(2), failed(3), failed(4), poll(5)],
      [null, null, "auto-repair: 3 sabakan polls failed in a row", null, "auto-repair: sabakan polls succeed again"],
    ],
    [
      "threshold 1: the first failure alerts",
      [failed(1), failed(2), poll(3)],
      ["auto-repair: 1 sabakan polls failed in a row", null, "auto-repair: sabakan polls succeed again"],
      1,
    ],
  ];
  for (const [name, outcomes, expected, threshold] of sequences) it(name, () => assert.deepEqual(titles(outcomes, threshold), expected));

  it("the failure alert says since when and the latest error", () => {
    let state = INITIAL_OUTCOME_STATE;
    for (const o of [failed(1), failed(2)]) state = alertForOutcome(o, state).state;
    assert.deepEqual(alertForOutcome(failed(3), state).alert, {
      kind: "warning",
      severity: "warning",
      title: "auto-repair: 3 sabakan polls failed in a row",
      text: "latest error: sabakan answered HTTP 503",
      fields: { "failing since": time(1), poll: "3", trigger: "schedule", time: time(3) },
    });
  });
});

describe("alertForOutcome: machines deferred", () => {
  const sequences: Array<[string, AutoRepairOutcomePayload[], Array<string | null>]> = [
    [
      "a rack deferred for three polls: one message when it starts, one when it clears",
      [rack(1, 3), rack(2, 3), rack(3, 3), poll(4)],
      [HELD_RACK_3, null, null, CLEARED],
    ],
    ["the count of a deferred rack changing is no news", [rack(1, 3, 4), rack(2, 3, 6), rack(3, 3, 5)], [HELD_RACK_3, null, null]],
    [
      "another rack over the limit: one 'still holds' message",
      [rack(1, 3), poll(2, { skipped: [...many(4, "RACK_LIMIT", 3), ...many(2, "RACK_LIMIT", 5)] }), rack(3, 3)],
      [
        HELD_RACK_3,
        "auto-repair still defers 6 machines, now: 6 in racks 3 (4), 5 (2) over the per-rack limit",
        "auto-repair still defers 4 machines, now: 4 in rack 3 over the per-rack limit",
      ],
    ],
    [
      "the cap holds when the rack limit clears: no clear until nothing is deferred",
      [rack(1, 3), capped(2), capped(3), poll(4)],
      [
        HELD_RACK_3,
        "auto-repair still defers 2 machines, now: 2 in racks 1, 2 over maximum-repair-queue-entries",
        null,
        "auto-repair no longer short-circuited; no machine deferred",
      ],
    ],
    [
      "the cap clearing while the rack limit holds: not 'no longer short-circuited'",
      [poll(1, { skipped: [...capped(1).skipped, ...many(4, "RACK_LIMIT", 3)], shortCircuit: capped(1).shortCircuit }), rack(2, 3)],
      [
        "auto-repair defers 6 machines: 4 in rack 3 over the per-rack limit; 2 in racks 1, 2 over maximum-repair-queue-entries",
        "auto-repair still defers 4 machines, now: 4 in rack 3 over the per-rack limit",
      ],
    ],
    ["a failed poll neither clears nor repeats a hold", [rack(1, 3), failed(2), rack(3, 3), failed(4), poll(5)], [HELD_RACK_3, null, null, null, CLEARED]],
    [
      "polls failing during a hold: their alert, then the recovery, and the hold is not told again",
      [rack(1, 3), failed(2), failed(3), failed(4), rack(5, 3)],
      [HELD_RACK_3, null, null, "auto-repair: 3 sabakan polls failed in a row", "auto-repair: sabakan polls succeed again"],
    ],
    [
      "recovering into a hold: one message",
      [failed(1), failed(2), failed(3), capped(4)],
      [
        null,
        null,
        "auto-repair: 3 sabakan polls failed in a row",
        "auto-repair: sabakan polls succeed again; auto-repair defers 2 machines: 2 in racks 1, 2 over maximum-repair-queue-entries",
      ],
    ],
    [
      "a rebooting wait: deferred, then cleared",
      [rebooting(1, 2), rebooting(2, 2), poll(3)],
      ["auto-repair defers 1 machine: 1 in rack 2 rebooting", null, CLEARED],
    ],
    ["a reboot in another rack is the same hold", [rebooting(1, 2), rebooting(2, 4)], ["auto-repair defers 1 machine: 1 in rack 2 rebooting", null]],
    [
      "plain skips hold nothing back",
      [
        poll(1, {
          skipped: [
            { kind: "RECENTLY_REPAIRED", rack: 1 },
            { kind: "NO_ADDRESS", rack: 2 },
          ],
        }),
      ],
      [null],
    ],
    ["a kind a newer server sends is left out", [poll(1, { skipped: [{ kind: "SOMETHING_NEW", rack: 1 }] })], [null]],
    [
      "a storm's outcome lists some of its skips: the alert counts all of them",
      [
        poll(1, {
          skipped: many(2, "QUEUE_LIMIT", 1),
          skippedByKind: [
            { kind: "QUEUE_LIMIT", machines: 10_000 },
            { kind: "SOMETHING_NEW", machines: 3 },
          ],
          shortCircuit: { existingEntries: 0, candidates: 10_000, limit: 10 },
        }),
      ],
      ["auto-repair defers 10000 machines: 10000 in rack 1 among others over maximum-repair-queue-entries"],
    ],
    [
      "a storm's rack limit: the listed racks without their partial counts",
      [poll(1, { skipped: [...many(2, "RACK_LIMIT", 3), ...many(2, "RACK_LIMIT", 5)], skippedByKind: [{ kind: "RACK_LIMIT", machines: 80 }] })],
      ["auto-repair defers 80 machines: 80 in racks 3, 5 among others over the per-rack limit"],
    ],
  ];
  for (const [name, outcomes, expected] of sequences) it(name, () => assert.deepEqual(titles(outcomes), expected));

  it("the deferral message names every reason with its racks and counts, and the cap's numbers", () => {
    const outcome = poll(1, {
      skipped: [
        ...many(4, "RACK_LIMIT", 3),
        ...capped(1).skipped,
        { kind: "REBOOTING", rack: 6 },
        { kind: "OUT_OF_CLUSTER", rack: 6 },
        { kind: "RECENTLY_REPAIRED", rack: 7 },
      ],
      shortCircuit: capped(1).shortCircuit,
    });
    assert.deepEqual(alertForOutcome(outcome, INITIAL_OUTCOME_STATE).alert, {
      kind: "held",
      severity: "warning",
      title:
        "auto-repair defers 8 machines: 4 in rack 3 over the per-rack limit; 2 in racks 1, 2 over maximum-repair-queue-entries; 1 in rack 6 rebooting; 1 in rack 6 out of the cluster, may be rebooting",
      text: [
        "rack 3: 4 machines deferred: more unhealthy machines than maximum-unhealthy-machines-per-rack, likely an infrastructure failure",
        "2 machines deferred in racks 1, 2: short-circuited: 3 entries in the queue + 2 candidates > maximum-repair-queue-entries 4, so none was enqueued",
        "1 machine deferred in rack 6: CKE is rebooting their nodes; repaired if still unreachable after wait-seconds-to-repair-rebooting",
        "1 machine deferred in rack 6: unreachable and not nodes, may be rebooting; repaired if still unreachable after wait-seconds-to-repair-rebooting",
      ].join("\n"),
      fields: {
        deferred: "8",
        racks: "1, 2, 3, 6",
        "existing entries": "3",
        candidates: "2",
        limit: "4",
        "machines seen": "12",
        poll: "1",
        trigger: "schedule",
        time: time(1),
      },
    });
  });

  it("the clear message says since when, over how many polls, and what was deferred last", () => {
    let state = INITIAL_OUTCOME_STATE;
    for (const o of [rack(1, 3), failed(2), rack(3, 3, 5)]) state = alertForOutcome(o, state).state;
    assert.deepEqual(alertForOutcome(poll(4), state).alert, {
      kind: "cleared",
      severity: "info",
      title: CLEARED,
      text: `the latest poll deferred nothing; deferred since ${time(1)} over 2 polls, last: 5 in rack 3 over the per-rack limit`,
      fields: { "deferred since": time(1), poll: "4", trigger: "schedule", time: time(4) },
    });
  });

  it("a 'still holds' message says since when", () => {
    let state = INITIAL_OUTCOME_STATE;
    state = alertForOutcome(rack(1, 3), state).state;
    assert.equal(alertForOutcome(rack(2, 5), state).alert?.fields["deferred since"], time(1));
  });
});

describe("alertForOutcome: repeat offenders escalated", () => {
  const escalated = (serial: string, reason: string): Skip => ({ kind: "ESCALATED", rack: 1, serial, address: `10.0.0.${serial.slice(1)}`, reason });
  const cases: Array<{ name: string; outcomes: AutoRepairOutcomePayload[]; titles: Array<string | null> }> = [
    { name: "a poll without escalations says nothing of them", outcomes: [poll(1, { skipped: [{ kind: "RECENTLY_REPAIRED", rack: 1 }] })], titles: [null] },
    {
      name: "each poll that escalates machines alerts, whatever else it held",
      outcomes: [
        poll(1, { skipped: [escalated("s1", "repaired 3 times in 1d: held")] }),
        poll(2, { skipped: [{ kind: "HELD", rack: 1 }] }),
        rack(3, 3, 4, [escalated("s2", "repaired 3 times in 1d: enqueued retire instead")]),
      ],
      titles: ["auto-repair escalated 1 machine repaired too often", null, `${HELD_RACK_3}; auto-repair escalated 1 machine repaired too often`],
    },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(titles(c.outcomes), c.titles));

  it("names each machine and why", () => {
    const outcome = poll(1, { skipped: [escalated("s1", "repaired 3 times in 1d: held"), escalated("s2", "repaired 4 times in 1d: enqueued retire instead")] });
    assert.deepEqual(alertForOutcome(outcome, INITIAL_OUTCOME_STATE).alert, {
      kind: "warning",
      severity: "warning",
      title: "auto-repair escalated 2 machines repaired too often",
      text: "s1 (10.0.0.1): repaired 3 times in 1d: held\ns2 (10.0.0.2): repaired 4 times in 1d: enqueued retire instead",
      fields: { escalated: "2", poll: "1", trigger: "schedule", time: time(1) },
    });
  });
});

describe("alertForOutcome: a storm's outcome listing only some of its skips", () => {
  it("explains the rack limit with the whole count and the listed racks", () => {
    const outcome = poll(1, { skipped: [...many(2, "RACK_LIMIT", 3), ...many(2, "RACK_LIMIT", 5)], skippedByKind: [{ kind: "RACK_LIMIT", machines: 80 }] });
    const { alert } = alertForOutcome(outcome, INITIAL_OUTCOME_STATE);
    assert.equal(
      alert?.text,
      "80 machines deferred in racks 3, 5 among others: more unhealthy machines than maximum-unhealthy-machines-per-rack, likely an infrastructure failure",
    );
    assert.equal(alert?.fields["deferred"], "80");
  });
});
