import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideIntake, type IntakeInput } from "../../../src/domain/intake/auto-repair-intake.js";
import { replayAutoRepair, type ReplayLimits } from "../../../src/domain/replay/auto-repair-replay.js";
import { recordPoll, type PollRecord } from "../../../src/domain/replay/poll-record.js";
import type { FinishedOutcome } from "../../../src/domain/pacing/repair-pacing.js";
import type { SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";
import { machine as sabakanMachine } from "../intake/intake-support.js";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const MINUTE = 60_000;

/** Machine `n` (serial `s<n>`, 10.0.0.<n>), UNHEALTHY for 10 minutes. */
const machine = (n: number, over: Partial<SabakanMachine> = {}): SabakanMachine => sabakanMachine(`s${n}`, { durationSeconds: 600, ...over });

const LIVE = { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 };

/**
 * Records a live run: each poll decides on the queue as the live run left it, where an entry lives `live` polls
 * (a stand-in for the real repair) unless its machine leaves the answer first.
 */
function liveRun(answers: SabakanMachine[][], constraints: IntakeInput["constraints"] = LIVE, repairPolls = 3, before: string[] = []): PollRecord[] {
  const queue = new Map<string, number>(before.map((a) => [a, Number.POSITIVE_INFINITY]));
  return answers.map((machines, poll) => {
    for (const [address, until] of queue)
      if (poll >= until || (until !== Number.POSITIVE_INFINITY && !machines.some((m) => m.ipv4[0] === address))) queue.delete(address);
    const input: IntakeInput = { machines, entries: [...queue.keys()].map((address, index) => ({ index, address }) as never), nodes: new Map(), constraints };
    const decision = decideIntake(input);
    for (const e of decision.enqueue) queue.set(e.address, poll + repairPolls);
    return recordPoll(input, decision, NOW + poll * MINUTE);
  });
}

const summary = (records: PollRecord[], limits: ReplayLimits) => {
  const report = replayAutoRepair(records, limits);
  return {
    polls: report.polls.map((p) => ({
      at: (p.time - NOW) / MINUTE,
      live: p.live.enqueued,
      simulated: p.simulated.enqueued,
      short: [p.live.shortCircuited, p.simulated.shortCircuited],
      fates: p.differences.map((d) => `${d.serial}:${d.live}->${d.simulated}`),
    })),
    totals: [report.enqueuedLive, report.enqueuedSimulated],
  };
};

const storm = [[machine(1), machine(2), machine(3)], [machine(1), machine(2), machine(3)], [machine(4)]];

/** Two machines repaired within the minute live (sabakan still says unhealthy at the next poll), and a third. */
const overlap = [
  [machine(1), machine(2)],
  [machine(1), machine(2), machine(3)],
];
const LIVE3 = { ...LIVE, maximumRepairQueueEntries: 3 };
const earlier = (n: number): FinishedOutcome => ({ entryIndex: n, machineType: "IPMI-2.0", rack: 0, status: "succeeded", time: NOW - (10 - n) * MINUTE });

describe("replayAutoRepair (what other limits would have done)", () => {
  const cases: Array<{ name: string; records: PollRecord[]; limits: ReplayLimits; expected: ReturnType<typeof summary> }> = [
    {
      name: "the recorded limits replay to no difference",
      records: liveRun(storm),
      limits: { constraints: {}, repairSeconds: 600 },
      expected: { polls: [], totals: [4, 4] },
    },
    {
      name: "a lower queue limit short-circuits the storm, and the lone machine later still gets in",
      records: liveRun(storm),
      limits: { constraints: { maximumRepairQueueEntries: 2 }, repairSeconds: 600 },
      expected: {
        polls: [
          {
            at: 0,
            live: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
            simulated: [],
            short: [false, true],
            fates: ["s1:enqueued->queue_limit", "s2:enqueued->queue_limit", "s3:enqueued->queue_limit"],
          },
          {
            at: 1,
            live: [],
            simulated: [],
            short: [false, true],
            fates: ["s1:recently_repaired->queue_limit", "s2:recently_repaired->queue_limit", "s3:recently_repaired->queue_limit"],
          },
        ],
        totals: [4, 1],
      },
    },
    {
      name: "a higher queue limit lets in what the live run short-circuited, which then stays in the simulated queue",
      records: liveRun(storm, { ...LIVE, maximumRepairQueueEntries: 2 }),
      limits: { constraints: { maximumRepairQueueEntries: 3 }, repairSeconds: 600 },
      expected: {
        polls: [
          {
            at: 0,
            live: [],
            simulated: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
            short: [true, false],
            fates: ["s1:queue_limit->enqueued", "s2:queue_limit->enqueued", "s3:queue_limit->enqueued"],
          },
          {
            at: 1,
            live: [],
            simulated: [],
            short: [true, false],
            fates: ["s1:queue_limit->recently_repaired", "s2:queue_limit->recently_repaired", "s3:queue_limit->recently_repaired"],
          },
        ],
        totals: [1, 4],
      },
    },
    {
      name: "a simulated entry ends after the assumed repair time, and the machine is enqueued again",
      records: liveRun([[machine(1)], [machine(1)], [machine(1)], [machine(1)]], { ...LIVE, maximumRepairQueueEntries: 0 }),
      limits: { constraints: { maximumRepairQueueEntries: 1 }, repairSeconds: 120 },
      expected: {
        polls: [
          { at: 0, live: [], simulated: ["10.0.0.1"], short: [true, false], fates: ["s1:queue_limit->enqueued"] },
          { at: 1, live: [], simulated: [], short: [true, false], fates: ["s1:queue_limit->recently_repaired"] },
          { at: 2, live: [], simulated: ["10.0.0.1"], short: [true, false], fates: ["s1:queue_limit->enqueued"] },
          { at: 3, live: [], simulated: [], short: [true, false], fates: ["s1:queue_limit->recently_repaired"] },
        ],
        totals: [0, 2],
      },
    },
    {
      name: "a simulated entry ends when its machine leaves sabakan's answer (recovered)",
      records: liveRun([[machine(1)], [], [machine(1)]], { ...LIVE, maximumRepairQueueEntries: 0 }),
      limits: { constraints: { maximumRepairQueueEntries: 1 }, repairSeconds: 3600 },
      expected: {
        polls: [
          { at: 0, live: [], simulated: ["10.0.0.1"], short: [true, false], fates: ["s1:queue_limit->enqueued"] },
          { at: 2, live: [], simulated: ["10.0.0.1"], short: [true, false], fates: ["s1:queue_limit->enqueued"] },
        ],
        totals: [0, 2],
      },
    },
    {
      name: "an entry from before the replay stays as recorded and counts against the limit",
      records: liveRun([[machine(1)]], LIVE, 3, ["10.0.0.9"]),
      limits: { constraints: { maximumRepairQueueEntries: 1 }, repairSeconds: 600 },
      expected: { polls: [{ at: 0, live: ["10.0.0.1"], simulated: [], short: [false, true], fates: ["s1:enqueued->queue_limit"] }], totals: [1, 0] },
    },
    {
      name: "a per-rack limit holds a rack's storm that the live run enqueued",
      records: liveRun([[machine(1, { rack: 4 }), machine(2, { rack: 4 }), machine(3, { rack: 5 })]]),
      limits: { constraints: { maximumUnhealthyMachinesPerRack: 1 }, repairSeconds: 600 },
      expected: {
        polls: [
          {
            at: 0,
            live: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
            simulated: ["10.0.0.3"],
            short: [false, false],
            fates: ["s1:enqueued->rack_limit", "s2:enqueued->rack_limit"],
          },
        ],
        totals: [3, 1],
      },
    },
    {
      name: "a longer rebooting wait holds a freshly unreachable machine out of the cluster",
      records: liveRun([[machine(1, { state: "UNREACHABLE", durationSeconds: 90 })]]),
      limits: { constraints: { waitSecondsToRepairRebooting: 300 }, repairSeconds: 600 },
      expected: { polls: [{ at: 0, live: ["10.0.0.1"], simulated: [], short: [false, false], fates: ["s1:enqueued->out_of_cluster"] }], totals: [1, 0] },
    },
    {
      name: "runner unchanged: the entries the live run enqueued last as recorded, so no difference",
      records: liveRun(overlap, LIVE3, 1),
      limits: { constraints: {}, repairSeconds: 60, runner: { maxConcurrentRepairs: 1, pacingDomains: [], changed: false } },
      expected: { polls: [], totals: [5, 5] },
    },
    {
      name: "max_concurrent_repairs 1: the second repair is still running at the next poll, so its machine is not enqueued again",
      records: liveRun(overlap, LIVE3, 1),
      limits: { constraints: {}, repairSeconds: 60, runner: { maxConcurrentRepairs: 1, pacingDomains: [], changed: true } },
      expected: {
        polls: [
          {
            at: 1,
            live: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
            simulated: ["10.0.0.1", "10.0.0.3"],
            short: [false, false],
            fates: ["s2:enqueued->recently_repaired"],
          },
        ],
        totals: [5, 4],
      },
    },
    {
      name: "max_concurrent_repairs 3 without pacing: both repairs end within the minute, as live",
      records: liveRun(overlap, LIVE3, 1),
      limits: { constraints: {}, repairSeconds: 60, runner: { maxConcurrentRepairs: 3, pacingDomains: [], changed: true } },
      expected: { polls: [], totals: [5, 5] },
    },
    {
      name: "pacing by rack: slow start repairs one machine of the rack first, so the second is still in the queue",
      records: liveRun(overlap, LIVE3, 1),
      limits: { constraints: {}, repairSeconds: 60, runner: { maxConcurrentRepairs: 3, pacingDomains: ["rack"], changed: true } },
      expected: {
        polls: [
          {
            at: 1,
            live: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
            simulated: ["10.0.0.1", "10.0.0.3"],
            short: [false, false],
            fates: ["s2:enqueued->recently_repaired"],
          },
        ],
        totals: [5, 4],
      },
    },
    {
      name: "pacing by rack after two successes in the rack before the replay: room for both",
      records: liveRun(overlap, LIVE3, 1),
      limits: {
        constraints: {},
        repairSeconds: 60,
        runner: { maxConcurrentRepairs: 3, pacingDomains: ["rack"], changed: true, seed: [earlier(1), earlier(2)] },
      },
      expected: { polls: [], totals: [5, 5] },
    },
    {
      name: "an entry from before the replay holds the only repair slot, so the simulated repair never starts",
      records: liveRun([[machine(1)], [machine(1), machine(2)]], LIVE3, 1, ["10.0.0.9"]),
      limits: { constraints: {}, repairSeconds: 60, runner: { maxConcurrentRepairs: 1, pacingDomains: [], changed: true } },
      expected: {
        polls: [{ at: 1, live: ["10.0.0.1", "10.0.0.2"], simulated: ["10.0.0.2"], short: [false, false], fates: ["s1:enqueued->recently_repaired"] }],
        totals: [3, 2],
      },
    },
    {
      name: "a queue held longer by slow repairs meets a lower queue limit",
      records: liveRun(overlap, LIVE3, 1),
      limits: { constraints: { maximumRepairQueueEntries: 2 }, repairSeconds: 60, runner: { maxConcurrentRepairs: 1, pacingDomains: [], changed: true } },
      expected: {
        polls: [
          {
            at: 1,
            live: ["10.0.0.1", "10.0.0.2", "10.0.0.3"],
            simulated: [],
            short: [false, true],
            fates: ["s1:enqueued->queue_limit", "s2:enqueued->recently_repaired", "s3:enqueued->queue_limit"],
          },
        ],
        totals: [5, 2],
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(summary(c.records, c.limits), c.expected));
  }

  it("stops at the schedule's step bound and says so", () => {
    const records = liveRun(
      [
        [machine(1), machine(2), machine(3)],
        [machine(1), machine(2), machine(3)],
        [machine(1), machine(2), machine(3)],
      ],
      LIVE,
      1,
    );
    const runner = { maxConcurrentRepairs: 1, pacingDomains: [], changed: true };
    const whole = replayAutoRepair(records, { constraints: {}, repairSeconds: 3600, runner });
    assert.deepEqual([whole.pollsReplayed, whole.scheduleExhausted], [3, false]);
    const cut = replayAutoRepair(records, { constraints: {}, repairSeconds: 3600, runner, maxScheduleSteps: 0 });
    assert.deepEqual([cut.pollsReplayed, cut.scheduleExhausted], [1, true]);
  });

  it("leaves the records untouched (the replay reads only)", () => {
    const records = liveRun(storm);
    const before = JSON.stringify(records);
    replayAutoRepair(records, { constraints: { maximumRepairQueueEntries: 0 }, repairSeconds: 1 });
    assert.equal(JSON.stringify(records), before);
  });
});
