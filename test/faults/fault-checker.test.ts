import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commandRuns, parseCommandLog, type CommandRun } from "./command-log.js";
import { checkRun, type CheckName, type HealthSample, type LeadershipEvent, type RunObservations } from "./fault-checker.js";
import type { EntryView, HistoryRecordView } from "./run-history.js";

const T = Date.parse("2025-06-01T00:00:00Z");
const s = (seconds: number) => T + seconds * 1000;

function run(replica: string, entry: number, step: number, from: number, to: number, ended: CommandRun["ended"] = "end", address = "10.0.0.1"): CommandRun {
  return {
    replica,
    address,
    entry,
    step,
    attempt: 1,
    operationId: `${entry}-${step}-1-${replica}`,
    pid: 100 + entry * 10 + step,
    start: s(from),
    lastSeen: s(to),
    ended,
  };
}

function record(at: number, reason: string, step: number, replica: string | null = null, actor = "kintsugi"): HistoryRecordView {
  return { time: s(at), kind: "note", reason, detail: null, step, status: "PROCESSING", actor, replica };
}

const started = (r: CommandRun, at: number, replica: string | null = null) =>
  record(at, `step ${r.step}: starting the repair command, attempt 1 (operation id ${r.operationId})`, r.step - 1, replica);
const succeeded = (r: CommandRun, at: number, replica: string | null = null) =>
  record(at, `step ${r.step}: repair command succeeded; watching`, r.step - 1, replica);

function entry(index: number, history: HistoryRecordView[], status = "SUCCEEDED", address = "10.0.0.1"): EntryView {
  return { index, address, status, history: [record(-1, "added", 0, null, "anonymous"), ...history] };
}

const r0step1 = run("r0", 1, 1, 0, 6);
const r1step2 = run("r1", 1, 2, 7, 9);
const clean: RunObservations = {
  runs: [r0step1, r1step2],
  entries: [entry(1, [started(r0step1, -0.1), succeeded(r0step1, 6.1), started(r1step2, 6.9), succeeded(r1step2, 9.1)])],
  leadership: [
    { replica: "r0", time: s(-5) },
    { replica: "r1", time: s(6.5) },
  ],
  health: [],
  outages: [],
  outageGraceMs: 5000,
  unreadableLines: 0,
  recoveries: [{ what: "kill-during of r0", from: s(4), to: s(4), starts: [s(7)], boundMs: 10_000, elections: [], electedBoundMs: 20_000 }],
};

const leadership = (...events: Array<[string, number]>): LeadershipEvent[] => events.map(([replica, at]) => ({ replica, time: s(at) }));
const sample = (replica: string, at: number, code: number, leader = false, leaderName: string | null = null): HealthSample => ({
  replica,
  time: s(at),
  code,
  leader,
  leaderName,
});

const killedEarly = run("r0", 1, 1, 0, 2, null);
const outlived = run("r0", 1, 1, 0, 6, "end");
const successorStep2 = run("r1", 1, 2, 4, 6);

const cases: Array<{ name: string; observations: RunObservations; fails: CheckName[] }> = [
  { name: "a clean failover between steps passes", observations: clean, fails: [] },
  {
    name: "commands on one machine that touch end to start pass",
    observations: {
      ...clean,
      runs: [r0step1, run("r0", 1, 2, 6, 9)],
      entries: [entry(1, [started(r0step1, -0.1), succeeded(r0step1, 6), started(run("r0", 1, 2, 6, 9), 6), succeeded(run("r0", 1, 2, 6, 9), 9.1)])],
      leadership: leadership(["r0", -5]),
    },
    fails: [],
  },
  {
    name: "a successor's step 2 while the deposed leader's step 1 still runs fails no-overlap (and names the command run beside it)",
    observations: {
      ...clean,
      runs: [outlived, successorStep2],
      entries: [entry(1, [started(outlived, -0.1), started(successorStep2, 3.9), succeeded(successorStep2, 6.1)])],
      leadership: leadership(["r0", -5], ["r1", 3]),
    },
    fails: ["overlap", "unexplained-interruption"],
  },
  {
    name: "a killed command counts until its last tick",
    observations: {
      ...clean,
      runs: [killedEarly, run("r1", 2, 1, 1.5, 3, "end")],
      entries: [
        entry(1, [started(killedEarly, -0.1), record(8, `step 1: the command ${killedEarly.operationId} of r0 was interrupted`, 0)]),
        entry(2, [started(run("r1", 2, 1, 1.5, 3), 1.4), succeeded(run("r1", 2, 1, 1.5, 3), 3.1)]),
      ],
      leadership: leadership(["r0", -5], ["r1", 1]),
    },
    fails: ["overlap"],
  },
  {
    name: "commands on different machines at once pass",
    observations: {
      ...clean,
      runs: [r0step1, run("r0", 2, 1, 1, 5, "end", "10.0.0.2")],
      entries: [...clean.entries, entry(2, [started(run("r0", 2, 1, 1, 5), 0.9), succeeded(run("r0", 2, 1, 1, 5), 5.1)], "FAILED", "10.0.0.2")],
    },
    fails: [],
  },
  {
    name: "a step run again fails no-step-twice",
    observations: {
      ...clean,
      runs: [r0step1, { ...run("r1", 1, 1, 7, 9), operationId: "1-1-1-again" }],
    },
    fails: ["step-twice", "unexplained-interruption"],
  },
  {
    name: "a record of step 1 written by the deposed leader after the successor began step 2 fails no-deposed-write (replica from the API)",
    observations: {
      ...clean,
      entries: [entry(1, [started(r0step1, -0.1), started(r1step2, 6.9, "r1"), succeeded(r0step1, 7.5, "r0"), succeeded(r1step2, 9.1, "r1")])],
    },
    fails: ["deposed-write"],
  },
  {
    name: "the same record is attributed without the API's replica field, from the step's attempt note and the command log",
    observations: {
      ...clean,
      entries: [entry(1, [started(r0step1, -0.1), started(r1step2, 6.9), succeeded(r0step1, 7.5), succeeded(r1step2, 9.1)])],
    },
    fails: ["deposed-write"],
  },
  {
    name: "a command started by a replica after another became leader fails no-deposed-write",
    observations: { ...clean, leadership: leadership(["r0", -5], ["r1", -0.5]), runs: [r0step1, r1step2] },
    fails: ["deposed-write"],
  },
  {
    name: "a replica that acts again after it was elected again passes",
    observations: {
      ...clean,
      runs: [r0step1, run("r0", 1, 2, 7, 9)],
      entries: [entry(1, [started(r0step1, -0.1, "r0"), succeeded(r0step1, 6.1, "r0"), started(run("r0", 1, 2, 7, 9), 6.9, "r0")])],
      leadership: leadership(["r0", -5], ["r1", -3], ["r0", -1]),
    },
    fails: ["unexplained-interruption"],
  },
  {
    name: "a command log with a line it cannot read fails command-log",
    observations: { ...clean, unreadableLines: 1 },
    fails: ["command-log"],
  },
  {
    name: "an entry still processing at the end fails every-entry-ends",
    observations: { ...clean, entries: [{ ...(clean.entries[0] as EntryView), status: "PROCESSING" }] },
    fails: ["unfinished-entry"],
  },
  {
    name: "an announced command that never started, with no word about it, fails history-explains",
    observations: { ...clean, runs: [r1step2], entries: [entry(1, [started(r0step1, -0.1), started(r1step2, 6.9), succeeded(r1step2, 9.1)])] },
    fails: ["unexplained-interruption"],
  },
  {
    name: "an announced command that never started passes when a later record names its operation id",
    observations: {
      ...clean,
      runs: [r1step2],
      entries: [
        entry(1, [
          started(r0step1, -0.1),
          record(3, `step 1: command ${r0step1.operationId} never started on r0; watching out the step`, 0),
          started(r1step2, 6.9),
          succeeded(r1step2, 9.1),
        ]),
      ],
    },
    fails: [],
  },
  {
    name: "a command no history announced fails history-explains",
    observations: { ...clean, entries: [entry(1, [started(r0step1, -0.1), succeeded(r0step1, 6.1)])] },
    fails: ["unexplained-interruption"],
  },
  {
    name: "a replica answering 200 during an etcd outage, past the grace, fails health-in-outage",
    observations: { ...clean, outages: [{ from: s(20), to: s(40) }], health: [sample("r0", 26, 200, true, "r0")] },
    fails: ["health-in-outage"],
  },
  {
    name: "a 503 that still names a leader fails health-in-outage",
    observations: { ...clean, outages: [{ from: s(20), to: s(40) }], health: [sample("r2", 30, 503, false, "r0")] },
    fails: ["health-in-outage"],
  },
  {
    name: "503 naming no leader in an outage, and 200 within the grace or after it healed, pass",
    observations: {
      ...clean,
      outages: [{ from: s(20), to: s(40) }],
      health: [sample("r0", 30, 503), sample("r1", 22, 200, true, "r1"), sample("r1", 41, 200, false, "r2")],
    },
    fails: [],
  },
  {
    name: "a leader's commands at most the bound apart while an etcd member is cut off pass liveness",
    observations: {
      ...clean,
      recoveries: [
        { what: "cut-member of etcd1", from: s(0), to: s(30), starts: [s(9), s(18), s(27), s(36)], boundMs: 10_000, elections: [], electedBoundMs: 20_000 },
      ],
    },
    fails: [],
  },
  {
    name: "a leader's first command later than the bound after a fault of the leader fails liveness",
    observations: {
      ...clean,
      recoveries: [{ what: "kill-during of r0", from: s(-4), to: s(-4), starts: [s(7)], boundMs: 10_000, elections: [], electedBoundMs: 20_000 }],
    },
    fails: ["liveness"],
  },
  {
    name: "a gap longer than the bound between a leader's commands while an etcd member is cut off fails liveness",
    observations: {
      ...clean,
      recoveries: [
        {
          what: "cut-member of etcd1",
          from: s(0),
          to: s(30),
          starts: [s(1), s(5), s(16), s(20), s(29), s(31)],
          boundMs: 10_000,
          elections: [],
          electedBoundMs: 20_000,
        },
      ],
    },
    fails: ["liveness"],
  },
  {
    name: "a longer gap in which a new leader took over (it waits out its predecessor's commands) passes, up to its own bound",
    observations: {
      ...clean,
      recoveries: [
        { what: "cut-member of etcd1", from: s(0), to: s(30), starts: [s(1), s(16), s(20), s(29)], boundMs: 10_000, elections: [s(3)], electedBoundMs: 20_000 },
      ],
    },
    fails: [],
  },
  {
    name: "a gap past the bound of a new leader's takeover fails liveness",
    observations: {
      ...clean,
      recoveries: [
        { what: "cut-member of etcd1", from: s(0), to: s(30), starts: [s(1), s(22), s(29)], boundMs: 10_000, elections: [s(3)], electedBoundMs: 20_000 },
      ],
    },
    fails: ["liveness"],
  },
  {
    name: "no command after a fault fails liveness",
    observations: {
      ...clean,
      recoveries: [{ what: "cut-member of etcd1", from: s(8), to: s(30), starts: [], boundMs: 10_000, elections: [], electedBoundMs: 20_000 }],
    },
    fails: ["liveness"],
  },
  {
    name: "no command over the cut's last stretch, longer than the bound, fails liveness",
    observations: {
      ...clean,
      recoveries: [{ what: "cut-member of etcd1", from: s(0), to: s(30), starts: [s(1), s(8), s(15)], boundMs: 10_000, elections: [], electedBoundMs: 20_000 }],
    },
    fails: ["liveness"],
  },
];

describe("the fault suite's checker", () => {
  for (const c of cases) {
    it(c.name, () => {
      const found = [...new Set(checkRun(c.observations).violations.map((v) => v.check))].sort();
      assert.deepEqual(found, [...c.fails].sort(), JSON.stringify(checkRun(c.observations).violations, null, 1));
    });
  }

  it("counts the runner's records it cannot attribute without the API's replica field", () => {
    const result = checkRun({
      ...clean,
      entries: [entry(1, [...clean.entries[0]!.history.slice(1), record(10, "the health check reports the machine healthy", 1)])],
    });
    assert.deepEqual({ attributed: result.attributed, unattributed: result.unattributed }, { attributed: 4, unattributed: 1 });
  });
});

describe("the command log", () => {
  it("groups lines into commands by process and operation id, and counts the lines it cannot read", () => {
    const text = [
      `start ${s(0)} r0 10.0.0.1 1 1 1 1-1-1-aa 500`,
      `start ${s(0.5)} r1 10.0.0.2 2 1 1 2-1-1-bb 501`,
      `tick ${s(1)} r0 10.0.0.1 1 1 1 1-1-1-aa 500`,
      `tick ${s(1.5)} r1 10.0.0.2 2 1 1 2-1-1-bb 501`,
      `term ${s(1.7)} r1 10.0.0.2 2 1 1 2-1-1-bb 501`,
      `tick ${s(2)} r0 10.0.0.1 1 1 1 1-1-1-aa 500`,
      `start  r2 10.0.0.3 3 1 1 3-1-1-cc 502`,
      `end ${s(2.1)} r0 10.0.0.1`,
    ].join("\n");
    const { lines, unreadable } = parseCommandLog(text);
    assert.equal(unreadable, 2, "the line whose date failed and the torn last line");
    assert.deepEqual(commandRuns(lines), [
      { replica: "r0", address: "10.0.0.1", entry: 1, step: 1, attempt: 1, operationId: "1-1-1-aa", pid: 500, start: s(0), lastSeen: s(2), ended: null },
      { replica: "r1", address: "10.0.0.2", entry: 2, step: 1, attempt: 1, operationId: "2-1-1-bb", pid: 501, start: s(0.5), lastSeen: s(1.7), ended: "term" },
    ]);
  });
});
