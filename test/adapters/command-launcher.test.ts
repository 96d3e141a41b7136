import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ProcessCommandRunner } from "../../src/adapters/command-runner.js";
import { findLauncher, resolveExecutable } from "../../src/adapters/command-launcher.js";
import { tempDir } from "../support/temp-dir.js";
import { typescriptArgs } from "../support/typescript-child.js";
import { isAlive, pidIn } from "../support/process-alive.js";
import { until } from "../support/until.js";

const CHILD = join(import.meta.dirname, "../support/command-runner-child.ts");

/** Starts a runner process running `argv` with `timeout`; resolves once the command was handed to its spawner. */
async function runnerProcess(timeout: number, argv: string[]): Promise<ChildProcess & { spawnerPid: number }> {
  const child = spawn(process.execPath, [...typescriptArgs(CHILD), String(timeout), ...argv], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout?.on("data", (d: Buffer) => (out += d.toString()));
  await until("the runner process started its command", () => /started \d+\n/.test(out), Boolean, 30_000);
  return Object.assign(child, { spawnerPid: Number(/started (\d+)/.exec(out)?.[1]) });
}

describe("commands are bound to the process that runs them", { skip: findLauncher().launcher === null ? "no /bin/sh" : false }, () => {
  let dir: ReturnType<typeof tempDir>;
  const leftovers: number[] = [];
  before(() => (dir = tempDir("kintsugi-launcher-")));
  after(() => {
    for (const pid of leftovers) if (isAlive(pid)) process.kill(pid, "SIGKILL");
    dir.remove();
  });

  // The command and its own child, each writing its pid: both must go with the runner process.
  const script = 'sleep 600 & echo $! > "$1"; echo $$ > "$2"; wait';

  it("a runner process SIGKILLed takes its command's whole process group with it", async () => {
    const [grandchildFile, commandFile] = [join(dir.path, "gc-1"), join(dir.path, "cmd-1")];
    const runner = await runnerProcess(0, ["sh", "-c", script, "sh", grandchildFile, commandFile]);
    const pids = [await pidIn(grandchildFile), await pidIn(commandFile)];
    leftovers.push(...pids);
    assert.ok(pids.every(isAlive));
    assert.ok(isAlive(runner.spawnerPid), "the runner's spawner runs");
    leftovers.push(runner.spawnerPid);
    runner.kill("SIGKILL");
    await until(
      "the command, its child and the runner's spawner died with the runner",
      () => [...pids, runner.spawnerPid].filter(isAlive),
      (alive) => alive.length === 0,
    );
  });

  it("a frozen runner's command is killed by the backstop at its timeout + grace + 1 s", async () => {
    const [grandchildFile, commandFile] = [join(dir.path, "gc-2"), join(dir.path, "cmd-2")];
    const runner = await runnerProcess(1, ["sh", "-c", script, "sh", grandchildFile, commandFile]);
    const pids = [await pidIn(grandchildFile), await pidIn(commandFile)];
    leftovers.push(...pids);
    runner.kill("SIGSTOP");
    try {
      const frozenAt = Date.now();
      await until(
        "the backstop killed the command",
        () => pids.filter(isAlive),
        (alive) => alive.length === 0,
      );
      // The backstop is ceil(1 + 0.5 + 1) = 3 s after the start; the runner itself would have killed at 1.5 s.
      assert.ok(Date.now() - frozenAt < 10_000);
    } finally {
      runner.kill("SIGKILL");
    }
  });

  it("without a launcher, commands run as before (not bound)", async () => {
    const runner = new ProcessCommandRunner({ launcher: null });
    assert.deepEqual(await runner.run(["sh", "-c", "echo $0", "x"], { timeoutSeconds: 5 }), { kind: "ok", stdout: "x\n", stderr: "" });
  });

  it("finds executables as execvp does", () => {
    assert.equal(resolveExecutable("sh", "/nonexistent:/bin"), "/bin/sh");
    assert.equal(resolveExecutable("kintsugi-no-such-command", process.env.PATH), null);
    assert.equal(resolveExecutable("/bin/sh", undefined), "/bin/sh");
  });
});
