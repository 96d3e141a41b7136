import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { CommandOutcome } from "../../../src/domain/queue/command-outcome.js";
import { afterDiagnostics, DIAGNOSTICS_OUTPUT_CHARS, diagnosticsDetail } from "../../../src/domain/queue/diagnostics.js";
import type { RepairConfig } from "../../../src/domain/queue/repair-config.js";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import type { RepairSnapshot } from "../../../src/domain/queue/repair-plan.js";
import { CONFIG, SEC, T, entry, fixedRandom, operation, snapshot, stepCfg, summary } from "./repair-decision-support.js";

const T0 = T - 500;
const WITH_DIAGNOSTICS: RepairConfig = {
  ...CONFIG,
  repairProcedures: [
    {
      machineTypes: ["m"],
      repairOperations: [
        operation([stepCfg({ needDrain: true }), stepCfg({ watchSeconds: 0 })], { diagnosticsCommand: ["collect-sel"], diagnosticsTimeoutSeconds: 20 }),
      ],
    },
  ],
};

describe("decideRepairActions with a diagnostics command", () => {
  const cases: Array<{ name: string; snapshot: RepairSnapshot; want: ReturnType<typeof summary>; reason?: RegExp }> = [
    {
      name: "a queued entry runs its diagnostics first: committed as processing, still waiting, before the command",
      snapshot: snapshot([entry(1, { nodename: "node1" })], {}, { config: WITH_DIAGNOSTICS }),
      want: [{ index: 1, states: ["processing/0/waiting"], effect: "diagnostics" }],
      reason: /^step 1: running the diagnostics command before the first drain or repair command$/,
    },
    {
      name: "while the diagnostics run, nothing else happens",
      snapshot: snapshot(
        [entry(1, { nodename: "node1", status: "processing", lastTransitionTime: T0 })],
        { 1: { job: "diagnostics" } },
        { config: WITH_DIAGNOSTICS },
      ),
      want: [],
    },
    {
      name: "after the diagnostics (or a restart, a failover) the entry drains, without running them again",
      snapshot: snapshot([entry(1, { nodename: "node1", status: "processing", lastTransitionTime: T0 - 5 * SEC })], {}, { config: WITH_DIAGNOSTICS }),
      want: [{ index: 1, states: ["processing/0/draining"], effect: "drain" }],
    },
    {
      name: "a later step does not run them",
      snapshot: snapshot([entry(1, { status: "processing", step: 1, stepStatus: "waiting" })], {}, { config: WITH_DIAGNOSTICS }),
      want: [{ index: 1, states: ["processing/1/watching"], effect: "repair-command" }],
    },
    {
      name: "after a drain back-off they are not run again",
      snapshot: snapshot(
        [entry(1, { nodename: "node1", status: "processing", drainBackoffCount: 1, drainBackoffExpire: T - SEC })],
        {},
        { config: WITH_DIAGNOSTICS },
      ),
      want: [{ index: 1, states: ["processing/0/draining"], effect: "drain" }],
    },
    {
      name: "with the queue disabled they do not run",
      snapshot: snapshot([entry(1, { nodename: "node1" })], {}, { config: WITH_DIAGNOSTICS, enabled: false }),
      want: [],
    },
    {
      name: "a diagnosing entry takes a slot under max_concurrent_repairs",
      snapshot: snapshot([entry(1, { status: "processing", lastTransitionTime: T0 }), entry(2)], { 1: { job: "diagnostics" } }, { config: WITH_DIAGNOSTICS }),
      want: [],
    },
    {
      name: "without a diagnostics command, CKE's start: drain at once",
      snapshot: snapshot([entry(1, { nodename: "node1" })]),
      want: [{ index: 1, states: ["processing/0/draining"], effect: "drain" }],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const plan = decideRepairActions(c.snapshot, T, fixedRandom(0));
      assert.deepEqual(summary(plan), c.want);
      if (c.reason) assert.match(plan.actions[0]?.transitions.at(-1)?.reason ?? "", c.reason);
    });
  }
});

describe("afterDiagnostics", () => {
  const diagnosing = entry(1, { status: "processing", lastTransitionTime: T0 });
  const argv = ["collect-sel", "10.0.0.1"];
  const cases: Array<[string, CommandOutcome, RegExp | null]> = [
    ["success: a note with the output", { kind: "ok", stdout: "SEL: PSU 2 failed\n", stderr: "" }, /^step 1: diagnostics command succeeded$/],
    [
      "a non-zero exit is recorded, the repair goes on",
      { kind: "exit", code: 2, signal: null, stdout: "", stderr: "ipmitool: timeout\n" },
      /diagnostics command failed \(exit code 2; stderr: ipmitool: timeout\); the repair goes on/,
    ],
    ["a timeout is recorded", { kind: "timeout", timeoutSeconds: 20, stdout: "partial", stderr: "" }, /failed \(timed out after 20s\); the repair goes on/],
    ["a command that cannot start is recorded", { kind: "spawn-error", message: "ENOENT" }, /failed \(could not start: ENOENT\)/],
    ["an aborted command (dequeue) adds nothing", { kind: "aborted" }, null],
  ];
  for (const [name, outcome, reason] of cases) {
    it(name, () => {
      const note = afterDiagnostics(diagnosing, { argv, outcome });
      if (reason === null) return assert.equal(note, null);
      assert.equal(note?.kind, "note");
      assert.equal(note?.after, diagnosing, "the entry does not change: a failure never blocks the repair");
      assert.match(note?.reason ?? "", reason);
    });
  }

  it("keeps stdout and stderr with the command line", () => {
    assert.equal(
      diagnosticsDetail({ argv, outcome: { kind: "exit", code: 1, signal: null, stdout: "SEL entries\n", stderr: "warn\n" } }),
      `command: ["collect-sel","10.0.0.1"]\nstdout:\nSEL entries\n\nstderr:\nwarn\n`,
    );
  });

  it("keeps only the tail of a long output, and says it was truncated", () => {
    const long = `${"a".repeat(100)}${"x".repeat(DIAGNOSTICS_OUTPUT_CHARS - 3)}END`;
    const detail = diagnosticsDetail({ argv, outcome: { kind: "ok", stdout: long, stderr: "" } });
    assert.match(detail, /^command: .*\nstdout:\n\[truncated: the first 100 characters are not kept\]\nx+END$/);
    assert.ok(detail.length < DIAGNOSTICS_OUTPUT_CHARS + 200);
  });
});
