import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { FAILURE_TAIL_CHARS, type CommandOutcome } from "../../../src/domain/queue/command-outcome.js";
import { firstControlCharacter } from "../../../src/domain/shared/untrusted-text.js";
import { afterDrainFailure, afterRepairCommand, afterSuccessCommand } from "../../../src/domain/queue/repair-outcomes.js";
import { SEC, T, entry, fixedRandom } from "./repair-decision-support.js";

const watching = entry(1, { status: "processing", stepStatus: "watching", step: 1 });
const argv = ["repair", "10.0.0.1"];
const ok: CommandOutcome = { kind: "ok", stdout: "done\n", stderr: "" };
const exit3: CommandOutcome = { kind: "exit", code: 3, signal: null, stdout: "", stderr: "BMC unreachable\n" };

describe("afterRepairCommand", () => {
  const cases: Array<[string, CommandOutcome[], string | null, RegExp | null]> = [
    ["success on the first attempt: still watching, noted", [ok], "processing/note", /step 2: repair command succeeded; watching/],
    ["success on a retry", [exit3, ok], "processing/note", /succeeded \(attempt 2\)/],
    [
      "every attempt failed: failed with the exit code and why, as the command said on stderr",
      [exit3, exit3],
      "failed/transition",
      /^step 2: repair command failed on all 2 attempts: exit code 3; stderr: BMC unreachable$/,
    ],
    ["a timeout fails", [{ kind: "timeout", timeoutSeconds: 30, stdout: "", stderr: "" }], "failed/transition", /timed out after 30s/],
    ["a command that cannot start fails", [{ kind: "spawn-error", message: "ENOENT" }], "failed/transition", /could not start: ENOENT/],
    ["a signal fails", [{ kind: "exit", code: null, signal: "SIGKILL", stdout: "", stderr: "" }], "failed/transition", /killed by SIGKILL/],
    ["an aborted command (dequeue) changes nothing", [{ kind: "aborted" }], null, null],
  ];
  for (const [name, outcomes, want, reason] of cases) {
    it(name, () => {
      const t = afterRepairCommand(
        watching,
        outcomes.map((outcome) => ({ argv, outcome })),
        T,
      );
      assert.equal(t ? `${t.after.status}/${t.kind}` : null, want);
      if (reason) assert.match(t?.reason ?? "", reason);
    });
  }

  it("the reason quotes the stderr's end on one line, escaped and bounded: the machine's words are untrusted", () => {
    const stderr = `${"y".repeat(5000)}\nipmitool: Error: \x1b[2J\u202eUnable to establish IPMI v2 / RMCP+ session\r\n\n  Get Chassis Power Status failed  \n`;
    const t = afterRepairCommand(watching, [{ argv, outcome: { ...exit3, stderr } }], T);
    const reason = t?.reason ?? "";
    assert.match(
      reason,
      /^step 2: repair command failed: exit code 3; stderr: …y+ \| ipmitool: Error: \\x1b\[2J\\u202eUnable to establish IPMI v2 \/ RMCP\+ session \| Get Chassis Power Status failed$/,
    );
    assert.equal(reason.length, "step 2: repair command failed: exit code 3; stderr: …".length + FAILURE_TAIL_CHARS);
    assert.equal(firstControlCharacter(reason), null);
  });

  it("keeps the failed command's stderr tail in the detail", () => {
    const t = afterRepairCommand(watching, [{ argv, outcome: { ...exit3, stderr: `${"x".repeat(5000)}THE END\n` } }], T);
    assert.match(t?.detail ?? "", /^command: \["repair","10\.0\.0\.1"\]\nstderr: \.\.\.x+THE END$/);
    assert.ok((t?.detail ?? "").length < 2200);
  });
});

describe("afterSuccessCommand", () => {
  const cases: Array<[string, CommandOutcome | null, string | null, RegExp | null]> = [
    ["no success command: succeeded", null, "succeeded", /healthy$/],
    ["success command ok: succeeded", ok, "succeeded", /success command succeeded/],
    ["success command failed: failed, saying why", exit3, "failed", /^healthy, but the success command failed: exit code 3; stderr: BMC unreachable$/],
    ["success command timed out: failed", { kind: "timeout", timeoutSeconds: 5, stdout: "", stderr: "" }, "failed", /timed out after 5s/],
    ["aborted: nothing", { kind: "aborted" }, null, null],
  ];
  for (const [name, outcome, want, reason] of cases) {
    it(name, () => {
      const t = afterSuccessCommand(watching, outcome === null ? null : { argv, outcome }, T);
      assert.equal(t?.after.status ?? null, want);
      if (reason) assert.match(t?.reason ?? "", reason);
      if (t) assert.equal(t.after.lastTransitionTime, T - 500);
    });
  }
});

describe("afterDrainFailure", () => {
  it("backs off with the reason and the expiry", () => {
    const t = afterDrainFailure(entry(1, { status: "processing", stepStatus: "draining" }), "eviction of app/web refused: PDB", T, fixedRandom(0));
    assert.equal(t.after.drainBackoffCount, 1);
    assert.equal(t.after.drainBackoffExpire, T + 300 * SEC);
    assert.match(t.reason, /^drain failed: eviction of app\/web refused: PDB; backing off \(count 1\) until 2026-11-22T06:05:00\.500Z$/);
  });
});
