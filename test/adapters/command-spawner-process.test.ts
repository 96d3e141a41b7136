import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ProcessCommandRunner } from "../../src/adapters/command-runner.js";
import { CommandSpawner } from "../../src/adapters/command-spawner.js";
import { findLauncher } from "../../src/adapters/command-launcher.js";
import { tempDir } from "../support/temp-dir.js";
import { isAlive, pidIn } from "../support/process-alive.js";
import { until } from "../support/until.js";

// The command and its own child, each writing its pid.
const script = 'sleep 600 & echo $! > "$1"; echo $$ > "$2"; wait';

describe("the command spawner as a real process", { skip: findLauncher().launcher === null ? "no /bin/sh" : false }, () => {
  let dir: ReturnType<typeof tempDir>;
  const leftovers: number[] = [];
  before(() => (dir = tempDir("kintsugi-spawner-process-")));
  after(() => {
    for (const pid of leftovers) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    dir.remove();
  });

  it("killed mid-command: the command is reported killed (never a success), its group dies, a new spawner runs the next command", async () => {
    const spawner = new CommandSpawner();
    const runner = new ProcessCommandRunner({ spawner });
    const [grandchildFile, commandFile] = [join(dir.path, "gc-1"), join(dir.path, "cmd-1")];
    const running = runner.run(["sh", "-c", script, "sh", grandchildFile, commandFile], { timeoutSeconds: 0 });
    const pids = [await pidIn(grandchildFile), await pidIn(commandFile)];
    leftovers.push(...pids);
    const first = spawner.pid!;
    leftovers.push(first);
    process.kill(first, "SIGKILL");
    const outcome = await running;
    assert.equal(outcome.kind, "exit");
    assert.deepEqual([outcome.kind === "exit" && outcome.code, outcome.kind === "exit" && outcome.signal], [null, "SIGKILL"]);
    assert.match(
      outcome.kind === "exit" ? outcome.stderr : "",
      new RegExp(`^the command spawner \\(pid ${first}\\) died \\(killed by SIGKILL\\) before it reported`),
    );
    await until(
      "the command and its child died",
      () => pids.filter(isAlive),
      (alive) => alive.length === 0,
    );

    assert.deepEqual(await runner.run(["echo", "next"], { timeoutSeconds: 10 }), { kind: "ok", stdout: "next\n", stderr: "" });
    assert.notEqual(spawner.pid, first, "a new spawner");
    assert.ok(spawner.pid !== undefined && isAlive(spawner.pid));
  });

  it("stopped (SIGSTOP) while a command times out: the runner kills the group itself, gives up on the spawner and starts another", async () => {
    const spawner = new CommandSpawner();
    const runner = new ProcessCommandRunner({ spawner, killGraceMs: 200 });
    // Started and ready (its start under tsx takes longer than this command's timeout).
    assert.equal((await runner.run(["true"], { timeoutSeconds: 30 })).kind, "ok");
    const [grandchildFile, commandFile] = [join(dir.path, "gc-2"), join(dir.path, "cmd-2")];
    const running = runner.run(["sh", "-c", script, "sh", grandchildFile, commandFile], { timeoutSeconds: 0.5 });
    const pids = [await pidIn(grandchildFile), await pidIn(commandFile)];
    leftovers.push(...pids);
    const stopped = spawner.pid!;
    leftovers.push(stopped);
    process.kill(stopped, "SIGSTOP");
    const outcome = await running;
    assert.equal(outcome.kind, "timeout");
    assert.match(outcome.kind === "timeout" ? outcome.stderr : "", /did not report a command's end 5000 ms after its group was SIGKILLed; it was killed/);
    assert.deepEqual(pids.filter(isAlive), [], "the group was killed by the runner");
    await until("the stopped spawner was killed", () => !isAlive(stopped));
    assert.deepEqual(await runner.run(["echo", "next"], { timeoutSeconds: 10 }), { kind: "ok", stdout: "next\n", stderr: "" });
    assert.notEqual(spawner.pid, stopped);
  });

  describe("hostile output reaches the runner as it would from a child of its own", () => {
    const spawned = new ProcessCommandRunner({ spawner: new CommandSpawner(), maxOutputBytes: 1001 });
    const inProcess = new ProcessCommandRunner({ spawner: null, maxOutputBytes: 1001 });
    const cases: { name: string; script: string }[] = [
      {
        name: "bytes that look like the spawner's frames",
        script: `printf '\\000\\000\\000\\040{"t":"ended","id":0,"stdout":"x"}'; printf '\\000\\000\\000\\005' >&2`,
      },
      { name: "invalid UTF-8 and control characters", script: "printf '\\377\\376 \\033[2J \\r\\n\\000 \\342\\202'" },
      { name: "a cut through a multi-byte character", script: "i=0; while [ $i -lt 700 ]; do printf 'é'; i=$((i+1)); done" },
      { name: "more than the bound on both streams", script: "yes 'ab€' | head -c 300000; yes 'é' | head -c 300001 >&2; exit 7" },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const viaSpawner = await spawned.run(["sh", "-c", c.script], { timeoutSeconds: 30 });
        const own = await inProcess.run(["sh", "-c", c.script], { timeoutSeconds: 30 });
        assert.deepEqual(viaSpawner, own);
      });
    }
  });
});
