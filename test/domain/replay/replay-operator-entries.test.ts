import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideIntake, type IntakeInput } from "../../../src/domain/intake/auto-repair-intake.js";
import { replayAutoRepair, type ReplayLimits } from "../../../src/domain/replay/auto-repair-replay.js";
import { recordPoll, type PollRecord } from "../../../src/domain/replay/poll-record.js";
import type { SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";
import { machine as sabakanMachine } from "../intake/intake-support.js";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const MINUTE = 60_000;

/** Machine `n` (serial `s<n>`, 10.0.0.<n>), UNHEALTHY for 10 minutes. */
const machine = (n: number): SabakanMachine => sabakanMachine(`s${n}`, { durationSeconds: 600 });

/** One live poll, minute `poll`: sabakan's answer and the addresses in the queue as the live run had them. */
interface LivePoll {
  readonly answer: readonly SabakanMachine[];
  readonly queue: readonly string[];
}

/** The records of a live run whose queue is given poll by poll (what operators did between polls is in it, unrecorded). */
function recorded(polls: readonly LivePoll[], maximumRepairQueueEntries: number): PollRecord[] {
  const constraints = { maximumRepairQueueEntries, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 };
  return polls.map((p, poll) => {
    const input: IntakeInput = {
      machines: p.answer,
      entries: p.queue.map((address, index) => ({ index, address }) as never),
      nodes: new Map(),
      constraints,
    };
    return recordPoll(input, decideIntake(input), NOW + poll * MINUTE);
  });
}

/**
 * Auto-repair enqueues 10.0.0.1 at minute 0; its entry is repaired and dequeued by minute 2; at minute 3 an operator
 * has added an entry for it again (`repair-queue add`, no record says so) when sabakan reports it, and 10.0.0.2, again.
 */
const readded: LivePoll[] = [
  { answer: [machine(1)], queue: [] },
  { answer: [], queue: ["10.0.0.1"] },
  { answer: [], queue: [] },
  { answer: [machine(1), machine(2)], queue: ["10.0.0.1"] },
];

const summary = (records: PollRecord[], limits: ReplayLimits) =>
  replayAutoRepair(records, limits).polls.map((p) => ({
    at: (p.time - NOW) / MINUTE,
    queue: [p.live.queueSize, p.simulated.queueSize],
    fates: p.differences.map((d) => `${d.serial}:${d.live}->${d.simulated}`),
  }));

describe("replayAutoRepair: an operator's entry for a machine the live run repaired earlier in the replay", () => {
  const cases: Array<{ name: string; live: number; limits: ReplayLimits; expected: ReturnType<typeof summary> }> = [
    {
      name: "with the limit in force (1), the operator's entry stays in the queue: no difference",
      live: 1,
      limits: { constraints: {}, repairSeconds: 600 },
      expected: [],
    },
    {
      name: "with the limit in force (2), the operator's entry stays in the queue: no difference",
      live: 2,
      limits: { constraints: {}, repairSeconds: 600 },
      expected: [],
    },
    {
      name: "with a lower limit the live run's own entry is left out, and the operator's later one still counts",
      live: 2,
      limits: { constraints: { maximumRepairQueueEntries: 0 }, repairSeconds: 600 },
      expected: [
        { at: 0, queue: [0, 0], fates: ["s1:enqueued->queue_limit"] },
        { at: 3, queue: [1, 1], fates: ["s2:enqueued->queue_limit"] },
      ],
    },
  ];
  for (const { name, live, limits, expected } of cases) {
    it(name, () => assert.deepEqual(summary(recorded(readded, live), limits), expected));
  }
});
