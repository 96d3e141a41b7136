import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideIntake, type IntakeInput } from "../../../src/domain/intake/auto-repair-intake.js";
import { replayAutoRepair, type ReplayLimits } from "../../../src/domain/replay/auto-repair-replay.js";
import type { HealthCheckConfig } from "../../../src/domain/health/health-check-config.js";
import { gateOf, type HealthCheckEvaluation, type TargetState } from "../../../src/domain/health/health-check-evaluation.js";
import { decideRemediation } from "../../../src/domain/health/health-check-remediation.js";
import { recordPoll, type PollRecord } from "../../../src/domain/replay/poll-record.js";
import { recordRemediation, type RemediationRecord } from "../../../src/domain/replay/remediation-record.js";
import type { HealthCheckLimit } from "../../../src/domain/replay/remediation-replay.js";
import type { SabakanMachine } from "../../../src/domain/sabakan/sabakan-machine.js";
import { CHECK_REPAIR, WORKERS_CHECK } from "../health/health-check-support.js";
import { entry, machineHold } from "../queue/repair-decision-support.js";

const NOW = Date.parse("2026-11-23T12:00:00Z");
const MINUTE = 60_000;
const REPAIR = CHECK_REPAIR;
const CHECK = WORKERS_CHECK;
const LIVE = { maximumRepairQueueEntries: 10, waitSecondsToRepairRebooting: 0, maximumUnhealthyMachinesPerRack: 0 };

const machine = (n: number): SabakanMachine => ({
  serial: `s${n}`,
  rack: n,
  role: "cs",
  ipv4: [`10.0.0.${n}`],
  bmcType: "IPMI-2.0",
  state: "UNHEALTHY",
  durationSeconds: 600,
  stateSince: 0,
  indexInRack: 1,
  registerDate: 0,
  retireDate: 0,
  labels: {},
});

/** One step of a live run: a sabakan poll's answer, or a check's evaluation (node n -> its state; node n is at 10.0.0.n). */
type Step = { readonly poll: readonly number[] } | { readonly check: HealthCheckConfig; readonly nodes: Readonly<Record<number, TargetState>> };

function evaluate(check: HealthCheckConfig, nodes: Readonly<Record<number, TargetState>>): HealthCheckEvaluation {
  const targets = Object.entries(nodes).map(([n, state]) => ({
    node: `n${n}`,
    address: `10.0.0.${n}`,
    addressProblem: null,
    state,
    rule: null,
    since: null,
    nextCheckAt: null,
  }));
  const unhealthyCount = targets.filter((t) => t.state !== "healthy").length;
  return {
    name: check.name,
    expected: targets.length,
    currentHealthy: targets.length - unhealthyCount,
    unhealthyCount,
    gate: gateOf(check, targets.length, unhealthyCount),
    targets,
    nextCheckAt: null,
  };
}

/**
 * Records a live run: every step decides on ONE queue (as the runner's store does), where an entry lives three steps
 * (a minute each, a stand-in for the real repair).
 */
function liveRun(
  steps: readonly Step[],
  maximumRepairQueueEntries = LIVE.maximumRepairQueueEntries,
  held: readonly number[] = [],
  rackMaximum = 0,
): { polls: PollRecord[]; remediations: RemediationRecord[] } {
  const queue = new Map<string, number>();
  const polls: PollRecord[] = [];
  const remediations: RemediationRecord[] = [];
  steps.forEach((step, i) => {
    for (const [address, until] of queue) if (i >= until) queue.delete(address);
    const entries = [...queue.keys()].map((address, index) => entry(index + 1, { address }));
    const now = NOW + i * MINUTE;
    if ("poll" in step) {
      const input: IntakeInput = { machines: step.poll.map(machine), entries, nodes: new Map(), constraints: { ...LIVE, maximumRepairQueueEntries } };
      const decision = decideIntake(input);
      for (const e of decision.enqueue) queue.set(e.address, i + 3);
      polls.push(recordPoll(input, decision, now));
    } else {
      const evaluation = evaluate(step.check, step.nodes);
      const context = {
        entries,
        maximumRepairQueueEntries,
        repair: REPAIR,
        machineTypeOf: (node: string) => (node === "n9" ? null : node === "n6" ? "switch" : "IPMI-2.0"),
        holds: new Map(held.map((n) => [`10.0.0.${n}`, machineHold(`10.0.0.${n}`)])),
        ...(rackMaximum > 0 && { rackLimit: { maximum: rackMaximum, rackOf: rackOfAddress } }),
      };
      const decision = decideRemediation(step.check, evaluation, context);
      for (const e of decision.enqueue) queue.set(e.address, i + 3);
      if (evaluation.targets.some((t) => t.state === "unhealthy")) remediations.push(recordRemediation(evaluation, context, decision, now));
    }
  });
  return { polls, remediations };
}

/** The rack of the node at 10.0.0.n as sabakan names it: nodes 1-4 share rack 1, every other node has a rack of its own. */
const rackOfAddress = (address: string) => {
  const n = Number(address.split(".")[3]);
  return n <= 4 ? 1 : n;
};

const summary = (records: ReturnType<typeof liveRun>, limits: ReplayLimits, checks: readonly HealthCheckConfig[] = [CHECK]) => {
  const report = replayAutoRepair(records, limits, { checks: new Map(checks.map((c) => [c.name, c])), repair: REPAIR });
  return {
    evaluations: report.polls.map((p) => ({
      at: (p.time - NOW) / MINUTE,
      source: p.source.kind === "sabakan" ? "sabakan" : p.source.check,
      short: [p.live.shortCircuited, p.simulated.shortCircuited],
      fates: [...p.differences.map((d) => `${d.serial}:${d.live}->${d.simulated}`), ...p.targets.map((d) => `${d.node}:${d.live}->${d.simulated}`)],
    })),
    totals: [report.enqueuedLive, report.enqueuedSimulated],
    replayed: [report.pollsReplayed, report.remediationsReplayed],
    unconfigured: report.unconfiguredChecks,
  };
};

const limits = (maximumRepairQueueEntries: number | undefined, healthChecks: Record<string, HealthCheckLimit> = {}): ReplayLimits => ({
  constraints: maximumRepairQueueEntries === undefined ? {} : { maximumRepairQueueEntries },
  repairSeconds: 180,
  healthChecks: new Map(Object.entries(healthChecks)),
});
const forty = { ...CHECK, maxUnhealthy: { kind: "percent", value: 40 } } as const;
const perRack = (maximumUnhealthyMachinesPerRack: number): ReplayLimits => ({
  constraints: { maximumUnhealthyMachinesPerRack },
  repairSeconds: 180,
  healthChecks: new Map(),
});
// Three unhealthy nodes in rack 1, one in rack 5.
const RACK_STORM = { 1: "unhealthy", 2: "unhealthy", 3: "unhealthy", 5: "unhealthy", 7: "healthy" } as const;

describe("replayAutoRepair with health checks (one simulated queue for the intake and the remediations)", () => {
  const cases: Array<{
    name: string;
    records: ReturnType<typeof liveRun>;
    limits: ReplayLimits;
    checks?: HealthCheckConfig[];
    expected: Omit<ReturnType<typeof summary>, "replayed" | "unconfigured"> & { replayed?: number[]; unconfigured?: string[] };
  }> = [
    {
      name: "the recorded limits replay to no difference",
      records: liveRun([{ poll: [1, 2] }, { check: CHECK, nodes: { 3: "unhealthy", 4: "healthy" } }]),
      limits: limits(undefined),
      expected: { evaluations: [], totals: [3, 3], replayed: [1, 1] },
    },
    {
      name: "a lower queue limit: the intake fills the queue first and the check's remediation is not enqueued",
      records: liveRun([{ poll: [1, 2] }, { check: CHECK, nodes: { 3: "unhealthy", 4: "unhealthy" } }]),
      limits: limits(3),
      expected: {
        evaluations: [{ at: 1, source: "workers", short: [false, true], fates: ["n3:enqueued->queue_limit", "n4:enqueued->queue_limit"] }],
        totals: [4, 2],
      },
    },
    {
      name: "a lower queue limit, the reverse: the check's remediation fills the queue first and the poll short-circuits",
      records: liveRun([{ check: CHECK, nodes: { 3: "unhealthy", 4: "unhealthy" } }, { poll: [1, 2] }]),
      limits: limits(3),
      expected: {
        evaluations: [{ at: 1, source: "sabakan", short: [false, true], fates: ["s1:enqueued->queue_limit", "s2:enqueued->queue_limit"] }],
        totals: [4, 2],
      },
    },
    {
      name: "a machine the intake no longer enqueues is the check's to enqueue (the 'already in the queue' rule is shared)",
      records: liveRun([{ poll: [1, 2, 3] }, { check: CHECK, nodes: { 1: "unhealthy", 5: "healthy" } }]),
      limits: limits(2),
      expected: {
        evaluations: [
          { at: 0, source: "sabakan", short: [false, true], fates: ["s1:enqueued->queue_limit", "s2:enqueued->queue_limit", "s3:enqueued->queue_limit"] },
          { at: 1, source: "workers", short: [false, false], fates: ["n1:recently_repaired->enqueued"] },
        ],
        totals: [3, 1],
      },
    },
    {
      name: "a higher maxUnhealthy opens the short-circuited gate (pending targets count against it)",
      records: liveRun([{ check: forty, nodes: { 1: "unhealthy", 2: "unhealthy", 3: "pending", 4: "healthy", 5: "healthy" } }]),
      limits: limits(undefined, { workers: { maxUnhealthy: { kind: "percent", value: 60 } } }),
      expected: {
        evaluations: [{ at: 0, source: "workers", short: [true, false], fates: ["n1:short_circuited->enqueued", "n2:short_circuited->enqueued"] }],
        totals: [0, 2],
      },
    },
    {
      name: "an opened gate still holds a target of unknown type and one whose type has no procedure",
      records: liveRun([{ check: forty, nodes: { 1: "unhealthy", 6: "unhealthy", 9: "unhealthy", 2: "healthy", 3: "healthy" } }]),
      limits: limits(undefined, { workers: { maxUnhealthy: { kind: "percent", value: 100 } } }),
      expected: {
        evaluations: [
          {
            at: 0,
            source: "workers",
            short: [true, false],
            fates: ["n1:short_circuited->enqueued", "n6:short_circuited->no_procedure", "n9:short_circuited->unknown_type"],
          },
        ],
        totals: [0, 1],
      },
    },
    {
      name: "an opened gate still leaves an operator's hold alone",
      records: liveRun([{ check: forty, nodes: { 1: "unhealthy", 2: "unhealthy", 3: "unhealthy", 4: "healthy", 5: "healthy" } }], 10, [2]),
      limits: limits(undefined, { workers: { maxUnhealthy: { kind: "count", value: 3 } } }),
      expected: {
        evaluations: [
          {
            at: 0,
            source: "workers",
            short: [true, false],
            fates: ["n1:short_circuited->enqueued", "n2:short_circuited->held", "n3:short_circuited->enqueued"],
          },
        ],
        totals: [0, 2],
      },
    },
    {
      name: "a maxUnhealthy count that ignores the pending target would open it; counted, it stays closed",
      records: liveRun([{ check: forty, nodes: { 1: "unhealthy", 2: "unhealthy", 3: "pending", 4: "healthy", 5: "healthy" } }]),
      limits: limits(undefined, { workers: { maxUnhealthy: { kind: "count", value: 2 } } }),
      expected: { evaluations: [], totals: [0, 0] },
    },
    {
      name: "a lower maxUnhealthy short-circuits what the live check enqueued",
      records: liveRun([{ check: CHECK, nodes: { 1: "unhealthy", 2: "unhealthy", 3: "healthy" } }]),
      limits: limits(undefined, { workers: { maxUnhealthy: { kind: "count", value: 1 } } }),
      expected: {
        evaluations: [{ at: 0, source: "workers", short: [false, true], fates: ["n1:enqueued->short_circuited", "n2:enqueued->short_circuited"] }],
        totals: [2, 0],
      },
    },
    {
      name: "an unhealthyRange that excludes the count short-circuits too",
      records: liveRun([{ check: CHECK, nodes: { 1: "unhealthy", 2: "healthy" } }]),
      limits: limits(undefined, { workers: { unhealthyRange: { min: 2, max: 3 } } }),
      expected: { evaluations: [{ at: 0, source: "workers", short: [false, true], fates: ["n1:enqueued->short_circuited"] }], totals: [1, 0] },
    },
    {
      name: "a paused check stays closed whatever its replayed limit",
      records: liveRun([{ check: { ...CHECK, paused: true }, nodes: { 1: "unhealthy" } }]),
      limits: limits(undefined, { workers: { maxUnhealthy: { kind: "percent", value: 100 } } }),
      expected: { evaluations: [], totals: [0, 0] },
    },
    {
      name: "the recorded rack limit replays to no difference: the rack over it is held on both sides",
      records: liveRun([{ check: CHECK, nodes: RACK_STORM }], 10, [], 2),
      limits: limits(undefined),
      expected: { evaluations: [], totals: [1, 1], replayed: [0, 1] },
    },
    {
      name: "a higher maximum-unhealthy-machines-per-rack enqueues the rack the live limit held",
      records: liveRun([{ check: CHECK, nodes: RACK_STORM }], 10, [], 2),
      limits: perRack(3),
      expected: {
        evaluations: [
          { at: 0, source: "workers", short: [false, false], fates: ["n1:rack_limit->enqueued", "n2:rack_limit->enqueued", "n3:rack_limit->enqueued"] },
        ],
        totals: [1, 4],
      },
    },
    {
      name: "a lower maximum-unhealthy-machines-per-rack holds a rack the live run enqueued",
      records: liveRun([{ check: CHECK, nodes: RACK_STORM }], 10, [], 5),
      limits: perRack(2),
      expected: {
        evaluations: [
          { at: 0, source: "workers", short: [false, false], fates: ["n1:enqueued->rack_limit", "n2:enqueued->rack_limit", "n3:enqueued->rack_limit"] },
        ],
        totals: [4, 1],
      },
    },
    {
      name: "a gate the replay opens still holds a rack over the limit: a closed gate's record keeps the racks",
      records: liveRun([{ check: forty, nodes: RACK_STORM }], 10, [], 2),
      limits: limits(undefined, { workers: { maxUnhealthy: { kind: "percent", value: 100 } } }),
      expected: {
        evaluations: [
          {
            at: 0,
            source: "workers",
            short: [true, false],
            fates: ["n1:short_circuited->rack_limit", "n2:short_circuited->rack_limit", "n3:short_circuited->rack_limit", "n5:short_circuited->enqueued"],
          },
        ],
        totals: [0, 1],
      },
    },
    {
      name: "a record with no racks (the limit was off live) replays without a rack limit, whatever the replayed one",
      records: liveRun([{ check: CHECK, nodes: RACK_STORM }]),
      limits: perRack(1),
      expected: { evaluations: [], totals: [4, 4] },
    },
    {
      name: "a check no longer configured is carried as recorded: its entries still fill the simulated queue",
      records: liveRun([{ check: CHECK, nodes: { 3: "unhealthy", 4: "unhealthy" } }, { poll: [1, 2] }]),
      limits: limits(3),
      checks: [],
      expected: {
        evaluations: [{ at: 1, source: "sabakan", short: [false, true], fates: ["s1:enqueued->queue_limit", "s2:enqueued->queue_limit"] }],
        totals: [4, 2],
        replayed: [1, 0],
        unconfigured: ["workers"],
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = summary(c.records, c.limits, c.checks);
      assert.deepEqual({ evaluations: got.evaluations, totals: got.totals }, { evaluations: c.expected.evaluations, totals: c.expected.totals });
      if (c.expected.replayed) assert.deepEqual(got.replayed, c.expected.replayed);
      if (c.expected.unconfigured) assert.deepEqual(got.unconfigured, c.expected.unconfigured);
    });
  }
});
