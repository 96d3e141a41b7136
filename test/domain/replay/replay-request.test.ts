import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { PollRecord } from "../../../src/domain/replay/poll-record.js";
import type { RemediationRecord } from "../../../src/domain/replay/remediation-record.js";
import { boundReplay, checkReplayRequest, REPLAY_BOUNDS, type ReplayRequest } from "../../../src/domain/replay/replay-request.js";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const DAY = 86_400_000;
const request = (over: Partial<ReplayRequest> = {}): ReplayRequest => ({ since: NOW - 7 * DAY, constraints: {}, repairSeconds: null, ...over });

describe("checkReplayRequest (what one replay may cost)", () => {
  const accepted: Array<[string, ReplayRequest, unknown]> = [
    ["the defaults: no constraint changed, an hour's repair", request(), { constraints: {}, repairSeconds: 3600 }],
    ["since exactly 31 days back, and now", request({ since: NOW - 31 * DAY }), { constraints: {}, repairSeconds: 3600 }],
    [
      "the constraints given, nulls left out",
      request({ constraints: { maximumRepairQueueEntries: 5, waitSecondsToRepairRebooting: null, maximumUnhealthyMachinesPerRack: 0 }, repairSeconds: 60 }),
      { constraints: { maximumRepairQueueEntries: 5, maximumUnhealthyMachinesPerRack: 0 }, repairSeconds: 60 },
    ],
  ];
  for (const [name, r, limits] of accepted) {
    it(`accepts ${name}`, () => assert.deepEqual(checkReplayRequest(r, NOW), { ok: true, limits }));
  }
  const refused: Array<[string, ReplayRequest, string]> = [
    ["since in the future", request({ since: NOW + 1 }), "since: must not be in the future"],
    ["since more than 31 days back", request({ since: NOW - 31 * DAY - 1 }), "since: must be within the last 31 days"],
    [
      "a negative constraint",
      request({ constraints: { maximumRepairQueueEntries: -1 } }),
      "constraints.maximumRepairQueueEntries: must be an integer from 0 to 1000000, got -1",
    ],
    [
      "a constraint past a million",
      request({ constraints: { maximumUnhealthyMachinesPerRack: 1_000_001 } }),
      "constraints.maximumUnhealthyMachinesPerRack: must be an integer from 0 to 1000000, got 1000001",
    ],
    [
      "a fractional constraint",
      request({ constraints: { waitSecondsToRepairRebooting: 1.5 } }),
      "constraints.waitSecondsToRepairRebooting: must be an integer from 0 to 1000000, got 1.5",
    ],
    ["a repair time under a minute", request({ repairSeconds: 59 }), "repairSeconds: must be an integer from 60 to 2592000, got 59"],
    ["a repair time over 30 days", request({ repairSeconds: 30 * 86_400 + 1 }), "repairSeconds: must be an integer from 60 to 2592000, got 2592001"],
  ];
  for (const [name, r, message] of refused) {
    it(`refuses ${name}`, () => assert.deepEqual(checkReplayRequest(r, NOW), { ok: false, message }));
  }
});

describe("checkReplayRequest with the runner in force (pacing)", () => {
  const inForce = { maxConcurrentRepairs: 2, pacingDomains: ["rack" as const] };
  const runnerOf = (r: ReplayRequest) => {
    const checked = checkReplayRequest(r, NOW, { runner: inForce });
    return checked.ok ? [checked.limits.runner, checked.limits.maxScheduleSteps] : checked.message;
  };
  const cases: Array<[string, ReplayRequest["pacing"], unknown]> = [
    [
      "no pacing asked: the runner in force, unchanged",
      null,
      [{ maxConcurrentRepairs: 2, pacingDomains: ["rack"], changed: false }, REPLAY_BOUNDS.maxScheduleSteps],
    ],
    [
      "the same values spelled out: unchanged",
      { maxConcurrentRepairs: 2, domains: ["rack"] },
      [{ maxConcurrentRepairs: 2, pacingDomains: ["rack"], changed: false }, REPLAY_BOUNDS.maxScheduleSteps],
    ],
    [
      "another max_concurrent_repairs: changed, domains kept",
      { maxConcurrentRepairs: 5 },
      [{ maxConcurrentRepairs: 5, pacingDomains: ["rack"], changed: true }, REPLAY_BOUNDS.maxScheduleSteps],
    ],
    [
      "an empty list turns pacing off: changed",
      { domains: [] },
      [{ maxConcurrentRepairs: 2, pacingDomains: [], changed: true }, REPLAY_BOUNDS.maxScheduleSteps],
    ],
    [
      "another domain: changed",
      { domains: ["machine_type"] },
      [{ maxConcurrentRepairs: 2, pacingDomains: ["machine_type"], changed: true }, REPLAY_BOUNDS.maxScheduleSteps],
    ],
    ["max_concurrent_repairs 0 is refused", { maxConcurrentRepairs: 0 }, "pacing.maxConcurrentRepairs: must be an integer from 1 to 10000, got 0"],
    [
      "max_concurrent_repairs past 10,000 is refused",
      { maxConcurrentRepairs: 10_001 },
      "pacing.maxConcurrentRepairs: must be an integer from 1 to 10000, got 10001",
    ],
    ["a domain twice is refused", { domains: ["rack", "rack"] }, "pacing.domains: each domain may be listed once"],
  ];
  for (const [name, pacing, want] of cases) {
    it(name, () => assert.deepEqual(runnerOf(request({ pacing })), want));
  }

  it("without the runner in force, the limits carry none (every simulated repair starts at once)", () => {
    assert.deepEqual(checkReplayRequest(request({ pacing: { maxConcurrentRepairs: 3 } }), NOW), { ok: true, limits: { constraints: {}, repairSeconds: 3600 } });
  });
});

/** A record of `machines` answered machines (only the column the bound counts is filled). */
const polled = (time: number, machines: number): PollRecord => ({
  time,
  machines: { serial: new Array<string>(machines).fill("s"), ipv4: [], rack: [], types: [], type: [], state: [], seconds: [], standing: [] },
  queue: [],
  held: [],
  constraints: { maximumRepairQueueEntries: 0, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 },
  enqueued: [],
  shortCircuited: false,
});

describe("boundReplay (the polls and the CPU one replay may take)", () => {
  it("keeps every poll up to the bound, and says when more were read", () => {
    const few = [polled(1, 3), polled(2, 0)];
    assert.deepEqual(boundReplay({ polls: few }), { ok: true, records: { polls: few, remediations: [] }, truncated: false });
    const many = Array.from({ length: REPLAY_BOUNDS.maxPolls + 1 }, (_, i) => polled(i, 1));
    const bounded = boundReplay({ polls: many });
    assert.deepEqual(bounded.ok && [bounded.records.polls.length, bounded.records.polls.at(-1)?.time, bounded.truncated], [
      REPLAY_BOUNDS.maxPolls,
      REPLAY_BOUNDS.maxPolls - 1,
      true,
    ]);
  });

  it("refuses more machines summed over the polls than a replay may weigh, and accepts exactly the bound", () => {
    const half = REPLAY_BOUNDS.maxMachinePolls / 2;
    assert.equal(boundReplay({ polls: [polled(1, half), polled(2, half)] }).ok, true);
    assert.deepEqual(boundReplay({ polls: [polled(1, half), polled(2, half + 1)] }), {
      ok: false,
      message: `since: the recorded polls and remediations from then hold ${REPLAY_BOUNDS.maxMachinePolls + 1} machines in all, more than ${REPLAY_BOUNDS.maxMachinePolls} a replay may weigh; choose a later since`,
    });
  });
});

describe("checkReplayRequest: the health checks' gate limits", () => {
  const CHECKS = ["workers", "storage"];
  const hc = (healthChecks: ReplayRequest["healthChecks"]) => checkReplayRequest(request({ healthChecks }), NOW, { checks: CHECKS });
  it("accepts maxUnhealthy as a count or a percentage, and unhealthyRange, by check name", () => {
    const checked = hc([
      { name: "workers", maxUnhealthy: "40%" },
      { name: "storage", unhealthyRange: "[1-3]", maxUnhealthy: null },
    ]);
    assert.deepEqual(checked.ok && [...(checked.limits.healthChecks ?? [])], [
      ["workers", { maxUnhealthy: { kind: "percent", value: 40 } }],
      ["storage", { unhealthyRange: { min: 1, max: 3 } }],
    ]);
    const count = hc([{ name: "workers", maxUnhealthy: "2" }]);
    assert.deepEqual(count.ok && count.limits.healthChecks?.get("workers"), { maxUnhealthy: { kind: "count", value: 2 } });
    assert.deepEqual(hc([]), { ok: true, limits: { constraints: {}, repairSeconds: 3600 } });
  });
  const refused: Array<[string, ReplayRequest["healthChecks"], string]> = [
    [
      "a check that is not configured",
      [{ name: "nodes\u0007", maxUnhealthy: "1" }],
      'healthChecks[0].name: no health check named "nodes\\u0007" is configured (configured: workers, storage)',
    ],
    [
      "a check named twice",
      [
        { name: "workers", maxUnhealthy: "1" },
        { name: "workers", maxUnhealthy: "2" },
      ],
      "healthChecks[1].name: workers is given twice",
    ],
    [
      "both limits",
      [{ name: "workers", maxUnhealthy: "1", unhealthyRange: "[1-2]" }],
      "healthChecks[0]: give maxUnhealthy or unhealthyRange for workers, one of them",
    ],
    ["neither limit", [{ name: "workers" }], "healthChecks[0]: give maxUnhealthy or unhealthyRange for workers, one of them"],
    [
      "a percentage past 100",
      [{ name: "workers", maxUnhealthy: "101%" }],
      'healthChecks[0].maxUnhealthy: a whole number or a percentage 0-100% (e.g. 3 or 40%), got "101%"',
    ],
    [
      "a negative count",
      [{ name: "workers", maxUnhealthy: "-1" }],
      'healthChecks[0].maxUnhealthy: a whole number or a percentage 0-100% (e.g. 3 or 40%), got "-1"',
    ],
    [
      "a range with max < min",
      [{ name: "storage", unhealthyRange: "[3-1]" }],
      'healthChecks[0].unhealthyRange: [min-max] with min <= max (e.g. [1-3]), got "[3-1]"',
    ],
    [
      "more checks than the bound",
      Array.from({ length: REPLAY_BOUNDS.maxHealthChecks + 1 }, () => ({ name: "workers", maxUnhealthy: "1" })),
      `healthChecks: at most ${REPLAY_BOUNDS.maxHealthChecks}, got ${REPLAY_BOUNDS.maxHealthChecks + 1}`,
    ],
  ];
  for (const [name, healthChecks, message] of refused) {
    it(`refuses ${name}`, () => assert.deepEqual(hc(healthChecks), { ok: false, message }));
  }
});

/** A remediation record of `targets` unhealthy targets (only the column the bound counts is filled). */
const remediated = (time: number, targets: number): RemediationRecord => ({
  time,
  check: "workers",
  gate: { open: true, reason: null },
  targets,
  pending: 0,
  unhealthy: { node: new Array<string>(targets).fill("n"), address: [], addressProblem: [], machineType: [] },
  queue: [],
  held: [],
  maximumRepairQueueEntries: 0,
  enqueued: [],
  shortCircuited: false,
});

describe("boundReplay counts the remediation records too", () => {
  it("keeps the oldest records of both kinds together up to the bound", () => {
    const polls = Array.from({ length: REPLAY_BOUNDS.maxPolls }, (_, i) => polled(2 * i, 1));
    const remediations = [remediated(1, 1), remediated(3, 1)];
    const bounded = boundReplay({ polls, remediations });
    assert.deepEqual(bounded.ok && [bounded.records.polls.length, bounded.records.remediations.length, bounded.truncated], [
      REPLAY_BOUNDS.maxPolls - 2,
      2,
      true,
    ]);
  });

  it("counts unhealthy targets against the CPU bound", () => {
    const half = REPLAY_BOUNDS.maxMachinePolls / 2;
    assert.equal(boundReplay({ polls: [polled(1, half)], remediations: [remediated(2, half)] }).ok, true);
    assert.equal(boundReplay({ polls: [polled(1, half)], remediations: [remediated(2, half + 1)] }).ok, false);
  });
});
