import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { commandDue, commandStarted, type CommandMarker, type InheritedCommand } from "../../../src/domain/queue/command-marker.js";
import { inheritedCommand, inheritedTransition, waitForInheritedCommand } from "../../../src/domain/queue/entry-command.js";
import { afterRepairCommand, afterSuccessCommand } from "../../../src/domain/queue/repair-outcomes.js";
import { decideRepairActions } from "../../../src/domain/queue/repair-decision.js";
import type { RepairObservation, RepairSnapshot } from "../../../src/domain/queue/repair-plan.js";
import { assertDecision, entry, fixedRandom, SEC, snapshot, T } from "./repair-decision-support.js";

const R1 = { replica: "r1", run: "run-a" };
const R2 = { replica: "r2", run: "run-b" };
const MARGIN = 10;
const started = (over: Partial<CommandMarker> = {}): CommandMarker => ({ ...commandStarted("repair", "3-1-1-ab", R1, T - 20 * SEC, 30), ...over });
const watching = (command: CommandMarker | undefined) =>
  entry(3, { status: "processing", stepStatus: "watching", lastTransitionTime: T - 21 * SEC, ...(command && { command }) });

describe("inheritedCommand: what a reader makes of a command marker", () => {
  const cases: Array<{
    name: string;
    marker: CommandMarker | undefined;
    job?: RepairObservation["job"];
    self?: typeof R1;
    want: InheritedCommand["kind"] | null;
    until?: number | null;
  }> = [
    { name: "no marker: nothing inherited", marker: undefined, want: null },
    {
      name: "this process's own command runs: not inherited",
      marker: started({ run: R2.run, replica: R2.replica }),
      job: "repair-command",
      self: R2,
      want: null,
    },
    { name: "another replica's, within its timeout and margin: may run until start + 40 s", marker: started(), self: R2, want: "may-run", until: T + 20 * SEC },
    { name: "another replica's, at start + timeout + margin: over", marker: started({ startedAt: T - 40 * SEC }), self: R2, want: "interrupted", until: T },
    {
      name: "an earlier run of the same replica is another process: may run",
      marker: started(),
      self: { replica: "r1", run: "run-z" },
      want: "may-run",
      until: T + 20 * SEC,
    },
    { name: "this run's, its job gone: known to have ended", marker: started(), self: R1, want: "interrupted", until: null },
    { name: "no timeout: may run for ever (a person must act)", marker: started({ timeoutSeconds: 0 }), self: R2, want: "may-run", until: null },
    { name: "due, never started, by whichever replica", marker: commandDue(R1, 30), self: R2, want: "never-started" },
    { name: "during this process's drain job: still judged", marker: started(), job: "drain", self: R2, want: "may-run", until: T + 20 * SEC },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const got = inheritedCommand(watching(c.marker), c.job ?? "none", c.self ?? R2, MARGIN, T);
      assert.equal(got?.kind ?? null, c.want);
      if (c.until !== undefined) assert.equal(got !== null && "until" in got ? got.until : undefined, c.until);
    });
  }
});

describe("what the wait and the history say", () => {
  it("a wait names who started the command, when, and until when", () => {
    const w = waitForInheritedCommand(watching(started()), { kind: "may-run", marker: started(), until: T + 20 * SEC }, MARGIN);
    assert.equal(w.kind, "COMMAND");
    assert.equal(w.until, T + 20 * SEC);
    assert.match(
      w.message,
      /step 1: its repair command \(operation id 3-1-1-ab\), started by replica "r1" at 2026-11-22T05:59:40\.500Z, may still be running: nothing runs on machine 10\.0\.0\.3 until 2026-11-22T06:00:20\.500Z \(its timeout of 30s and a margin of 10s\)/,
    );
  });

  it("a command without a timeout names what a person must do", () => {
    const w = waitForInheritedCommand(
      watching(started({ timeoutSeconds: 0 })),
      { kind: "may-run", marker: started({ timeoutSeconds: 0 }), until: null },
      MARGIN,
    );
    assert.equal(w.until, null);
    assert.match(w.message, /has no timeout .* delete this entry \(kintsugi repair-queue delete 3\) and add it again/);
  });

  it("an interrupted repair command is not run again: the step watches from now", () => {
    const t = inheritedTransition(watching(started()), { kind: "interrupted", marker: started(), until: T - SEC }, T);
    assert.equal(t.kind, "transition");
    assert.equal(t.after.command, undefined);
    assert.equal(t.after.lastTransitionTime, T - 500);
    assert.match(t.reason, /was interrupted; nothing ran on the machine until 2026-11-22T05:59:59\.500Z.*not run again; watching from now/);
  });

  it("a repair command that never started says so, and runs now", () => {
    const t = inheritedTransition(watching(commandDue(R1, 30)), { kind: "never-started", marker: commandDue(R1, 30) }, T);
    assert.equal(t.kind, "note");
    assert.match(t.reason, /step 1: its repair command never started \(replica "r1", which was to run it, stopped first\); running it now/);
  });

  it("the outcome of a command removes its marker", () => {
    const e = watching(started());
    assert.equal(afterRepairCommand(e, [{ argv: ["x"], outcome: { kind: "ok", stdout: "", stderr: "" } }], T)?.after.command, undefined);
    assert.equal(afterSuccessCommand(e, null, T)?.after.command, undefined);
  });
});

describe("decideRepairActions with inherited commands", () => {
  const fence = { owner: R2, marginSeconds: MARGIN };
  const fenced = (s: RepairSnapshot): RepairSnapshot => ({ ...s, fence });
  const mayRun: InheritedCommand = { kind: "may-run", marker: started(), until: T + 20 * SEC };

  it("holds the entry and its machine while the command may run: no other entry of the machine starts, wakes at its end", () => {
    const other = entry(4, { address: "10.0.0.3" });
    const plan = assertDecision({
      name: "fenced",
      snapshot: fenced(snapshot([watching(started()), other], { 3: { inherited: mayRun, healthy: undefined } }, { max: 5 })),
      want: [],
      held: { 3: /may still be running/, 4: /being repaired by entry 3/ },
      wakeAt: T + 20 * SEC + 1,
    });
    assert.equal(plan.actions.length, 0);
  });

  it("a fenced entry takes its slot: nothing else starts beyond max_concurrent_repairs", () => {
    assertDecision({
      name: "slot",
      snapshot: fenced(snapshot([watching(started()), entry(5)], { 3: { inherited: mayRun, healthy: undefined } }, { max: 1 })),
      want: [],
      held: { 3: /may still be running/, 5: /max_concurrent_repairs/ },
    });
  });

  it("a deleted entry whose inherited command has no timeout is dequeued at once (the operator says it has ended)", () => {
    const forever: InheritedCommand = { kind: "may-run", marker: started({ timeoutSeconds: 0 }), until: null };
    const plan = decideRepairActions(
      fenced(
        snapshot(
          [watching(started({ timeoutSeconds: 0 })), entry(5)].map((e, i) => (i === 0 ? { ...e, deleted: true } : e)),
          { 3: { inherited: forever, healthy: undefined } },
        ),
      ),
      T,
      fixedRandom(0),
    );
    assert.deepEqual(
      plan.actions.map((a) => [a.entry.index, a.effect.kind]),
      [
        [3, "dequeue"],
        [5, "repair-command"],
      ],
    );
  });

  const deleted = (e: ReturnType<typeof watching>) => ({ ...e, deleted: true });
  const cases: Array<{ name: string; others: ReturnType<typeof entry>[]; max?: number; held: Record<number, RegExp> }> = [
    { name: "alone", others: [], held: { 3: /^deleted; it leaves the queue once its command has certainly ended: step 1: its repair command/ } },
    {
      name: "its machine stays busy: a new entry of the machine waits",
      others: [entry(5, { address: "10.0.0.3" })],
      held: { 3: /until 2026-11-22T06:00:20\.500Z/, 5: /being repaired by entry 3/ },
    },
    { name: "it keeps its slot", others: [entry(5)], max: 1, held: { 3: /leaves the queue/, 5: /max_concurrent_repairs/ } },
  ];
  for (const c of cases) {
    it(`a deleted entry whose inherited command may run stays until the command has certainly ended: ${c.name}`, () => {
      assertDecision({
        name: c.name,
        snapshot: fenced(snapshot([deleted(watching(started())), ...c.others], { 3: { inherited: mayRun, healthy: undefined } }, { max: c.max ?? 5 })),
        want: [],
        held: c.held,
        wakeAt: T + 20 * SEC + 1,
      });
    });
  }

  it("a deleted entry whose inherited command is over is dequeued, and its machine is free", () => {
    const over: InheritedCommand = { kind: "interrupted", marker: started(), until: T - SEC };
    const plan = decideRepairActions(
      fenced(snapshot([deleted(watching(started())), entry(5, { address: "10.0.0.3" })], { 3: { inherited: over, healthy: undefined } })),
      T,
      fixedRandom(0),
    );
    assert.deepEqual(
      plan.actions.map((a) => [a.entry.index, a.effect.kind]),
      [
        [3, "dequeue"],
        [5, "repair-command"],
      ],
    );
  });

  it("once over: the history says it, the step watches from now, and the command is not run again", () => {
    const over: InheritedCommand = { kind: "interrupted", marker: started(), until: T - SEC };
    const plan = decideRepairActions(fenced(snapshot([watching(started())], { 3: { inherited: over, healthy: false } })), T, fixedRandom(0));
    assert.deepEqual(
      plan.actions.map((a) => [a.effect.kind, a.transitions.map((t) => t.reason.replace(/ \(operation.*/, ""))]),
      [["none", ["step 1: its repair command"]]],
    );
    assert.equal(plan.actions[0]?.transitions[0]?.after.lastTransitionTime, T - 500);
    assert.equal(plan.waiting.get(3)?.kind, "WATCHING");
  });

  it("once over and healthy: the entry succeeds", () => {
    const over: InheritedCommand = { kind: "interrupted", marker: started(), until: T - SEC };
    const plan = decideRepairActions(fenced(snapshot([watching(started())], { 3: { inherited: over, healthy: true } })), T, fixedRandom(0));
    assert.deepEqual(
      plan.actions.map((a) => a.effect.kind),
      ["success-command"],
    );
  });

  it("never started: the history says so and the command runs now, marked due by this replica", () => {
    const due = commandDue(R1, 30);
    const plan = decideRepairActions(
      fenced(snapshot([watching(due)], { 3: { inherited: { kind: "never-started", marker: due }, healthy: false } })),
      T,
      fixedRandom(0),
    );
    const action = plan.actions[0];
    assert.equal(action?.effect.kind, "repair-command");
    assert.deepEqual(
      action?.transitions.map((t) => t.kind),
      ["note", "transition"],
    );
    assert.deepEqual(action?.transitions.at(-1)?.after.command, commandDue(R2, 30));
    assert.equal(action?.transitions.at(-1)?.after.lastTransitionTime, T - 500);
  });

  it("a step's repair command decided by a fenced pass is marked due", () => {
    const plan = decideRepairActions(fenced(snapshot([entry(5)])), T, fixedRandom(0));
    assert.deepEqual(plan.actions[0]?.transitions.at(-1)?.after.command, commandDue(R2, 30));
  });
});
