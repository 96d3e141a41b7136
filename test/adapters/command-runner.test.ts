import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { EventEmitter } from "node:events";
import { after, before, describe, it } from "node:test";
import { ProcessCommandRunner } from "../../src/adapters/command-runner.js";
import type { CommandOutcome } from "../../src/adapters/ports.js";
import { until } from "../support/until.js";

const NODE = process.execPath;
/** Generous: these tests check that nothing hangs, not how fast the machine is. */
const PROMPT_MS = 10_000;

/** A zombie counts as dead: reaping orphans is init's business, and some container inits take seconds for it. */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    assert.equal((err as NodeJS.ErrnoException).code, "ESRCH");
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat[stat.lastIndexOf(") ") + 2] !== "Z";
  } catch {
    return true; // no procfs: rely on kill alone
  }
}

/** Whether `pid` has exited and waits to be reaped (Linux procfs). */
function isZombie(pid: number): boolean {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat[stat.lastIndexOf(") ") + 2] === "Z";
}

/** Polls, because a killed process takes a moment to die. */
async function assertDies(pid: number, withinMs = 10_000): Promise<void> {
  await until(`process ${pid} dies`, () => !isAlive(pid), Boolean, withinMs);
}

async function readPid(file: string, withinMs = 5000): Promise<number> {
  const text = await until(
    `a pid in ${file}`,
    async () => (existsSync(file) ? await readFile(file, "utf8") : ""),
    (t) => t.endsWith("\n"),
    withinMs,
  );
  return Number(text.trim());
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
}

/** Runs and also checks that the runner left no timer behind once it resolved. */
async function timedRun(runner: ProcessCommandRunner, argv: readonly string[], timeoutSeconds: number, signal?: AbortSignal) {
  const timersBefore = activeTimers();
  const started = Date.now();
  const outcome = await runner.run(argv, { timeoutSeconds, signal });
  const elapsedMs = Date.now() - started;
  assert.equal(activeTimers(), timersBefore, "a timer outlived the run");
  return { outcome, elapsedMs };
}

describe("ProcessCommandRunner", () => {
  let dir: string;
  const runner = new ProcessCommandRunner();
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "kintsugi-command-runner-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  describe("reports how a command ended", () => {
    const cases: { name: string; argv: string[]; want: CommandOutcome }[] = [
      { name: "ok with stdout", argv: ["echo", "hello", "world"], want: { kind: "ok", stdout: "hello world\n", stderr: "" } },
      { name: "ok without a trailing newline", argv: ["printf", "%s-%s", "a", "b"], want: { kind: "ok", stdout: "a-b", stderr: "" } },
      {
        name: "ok with both streams",
        argv: [NODE, "-e", "process.stdout.write('out'); process.stderr.write('ärger')"],
        want: { kind: "ok", stdout: "out", stderr: "ärger" },
      },
      {
        name: "a non-zero exit with its code and stderr",
        argv: ["sh", "-c", "echo partial; echo 'ipmitool: no route' >&2; exit 3"],
        want: { kind: "exit", code: 3, signal: null, stdout: "partial\n", stderr: "ipmitool: no route\n" },
      },
      {
        name: "death by a signal",
        argv: ["sh", "-c", "echo dying; kill -TERM $$"],
        want: { kind: "exit", code: null, signal: "SIGTERM", stdout: "dying\n", stderr: "" },
      },
      {
        name: "death by SIGKILL from a node script",
        argv: [NODE, "-e", "process.kill(process.pid, 'SIGKILL')"],
        want: { kind: "exit", code: null, signal: "SIGKILL", stdout: "", stderr: "" },
      },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        assert.deepEqual((await timedRun(runner, c.argv, 10)).outcome, c.want);
      });
    }
  });

  describe("reports what could not be started as spawn-error, without throwing", () => {
    const cases: { name: string; argv: () => string[]; messageIncludes: string[] }[] = [
      { name: "empty argv", argv: () => [], messageIncludes: ["empty"] },
      { name: "a missing command", argv: () => ["kintsugi-no-such-command", "x"], messageIncludes: ["kintsugi-no-such-command", "ENOENT"] },
      { name: "a file that is not executable", argv: () => [join(dir, "not-executable")], messageIncludes: ["not-executable", "EACCES"] },
      { name: "an argument with a NUL byte", argv: () => ["echo", "a\0b"], messageIncludes: ["echo"] },
    ];
    before(async () => {
      await writeFile(join(dir, "not-executable"), "#!/bin/sh\necho ran\n");
      await chmod(join(dir, "not-executable"), 0o644);
    });
    for (const c of cases) {
      it(c.name, async () => {
        const { outcome } = await timedRun(runner, c.argv(), 10);
        assert.equal(outcome.kind, "spawn-error");
        for (const part of c.messageIncludes) assert.match(outcome.message, new RegExp(part));
      });
    }
  });

  describe("the environment", () => {
    it("adds the given variables to the operator's environment", async () => {
      const print = "process.stdout.write(JSON.stringify([process.env.KINTSUGI_SERIAL, process.env.PATH === undefined]))";
      const outcome = await runner.run([NODE, "-e", print], { timeoutSeconds: 10, env: { KINTSUGI_SERIAL: "SN-1" } });
      assert.deepEqual(outcome, { kind: "ok", stdout: JSON.stringify(["SN-1", false]), stderr: "" });
    });

    it("reports a value with a NUL byte as spawn-error, without throwing", async () => {
      const outcome = await runner.run([NODE, "-e", ""], { timeoutSeconds: 10, env: { KINTSUGI_SERIAL: "a\0b" } });
      assert.equal(outcome.kind, "spawn-error");
    });
  });

  it("passes each argument verbatim, never through a shell", async () => {
    const marker = join(dir, "shell-ran");
    const args = [`10.0.0.1; touch ${marker}`, `$(touch ${marker})`, `\`touch ${marker}\``, "a  b", "*", "'\"", `&& touch ${marker}`];
    const printArgs = "process.stdout.write(JSON.stringify(process.argv.slice(1)))";
    const { outcome } = await timedRun(runner, [NODE, "-e", printArgs, ...args], 10);
    assert.equal(outcome.kind, "ok");
    assert.deepEqual(JSON.parse(outcome.stdout), args);

    const echoed = await timedRun(runner, ["echo", `10.0.0.1; touch ${marker}`], 10);
    assert.deepEqual(echoed.outcome, { kind: "ok", stdout: `10.0.0.1; touch ${marker}\n`, stderr: "" });
    assert.equal(existsSync(marker), false, "something ran through a shell");
  });

  describe("timeouts", () => {
    it("returns timeout promptly", async () => {
      const { outcome, elapsedMs } = await timedRun(runner, ["sleep", "30"], 0.3);
      assert.deepEqual(outcome, { kind: "timeout", timeoutSeconds: 0.3, stdout: "", stderr: "" });
      assert.ok(elapsedMs < PROMPT_MS, `took ${elapsedMs} ms`);
    });

    it("kills the whole process group and keeps the output written before", async () => {
      const pidFile = join(dir, "group.pid");
      const script = 'sleep 60 & echo $! > "$1"; echo started; echo warming >&2; wait';
      const { outcome, elapsedMs } = await timedRun(runner, ["sh", "-c", script, "sh", pidFile], 0.3);
      assert.deepEqual(outcome, { kind: "timeout", timeoutSeconds: 0.3, stdout: "started\n", stderr: "warming\n" });
      assert.ok(elapsedMs < PROMPT_MS, `took ${elapsedMs} ms`);
      await assertDies(await readPid(pidFile));
    });

    const ignoringTerm = [
      { name: "SIGKILLs a group that ignores SIGTERM after the grace", script: `trap '' TERM; sleep 60 & echo $! > "$1"; wait` },
      { name: "SIGKILLs a grandchild that ignores SIGTERM after the child died of it", script: `(trap '' TERM; exec sleep 60) & echo $! > "$1"; wait` },
    ];
    for (const c of ignoringTerm) {
      it(c.name, async () => {
        const pidFile = join(dir, "stubborn.pid");
        await rm(pidFile, { force: true });
        const graceful = new ProcessCommandRunner({ killGraceMs: 200 });
        const { outcome, elapsedMs } = await timedRun(graceful, ["sh", "-c", c.script, "sh", pidFile], 0.3);
        assert.equal(outcome.kind, "timeout");
        // Timers never fire early, so anything sooner would mean the grace was skipped.
        assert.ok(elapsedMs >= 450, `resolved after ${elapsedMs} ms, before timeout + grace`);
        assert.ok(elapsedMs < PROMPT_MS, `took ${elapsedMs} ms`);
        await assertDies(await readPid(pidFile));
      });
    }

    it("does not wait for a background grandchild that holds the pipes after the child exited", async () => {
      const pidFile = join(dir, "orphan.pid");
      const { outcome, elapsedMs } = await timedRun(runner, ["sh", "-c", 'sleep 100 & echo $! > "$1"; echo bye', "sh", pidFile], 30);
      const orphan = await readPid(pidFile);
      try {
        assert.deepEqual(outcome, { kind: "ok", stdout: "bye\n", stderr: "" });
        assert.ok(elapsedMs < 5000, `took ${elapsedMs} ms`);
      } finally {
        process.kill(orphan, "SIGKILL");
      }
    });

    it("treats timeoutSeconds 0 as no timeout", async () => {
      const { outcome } = await timedRun(runner, ["sh", "-c", "sleep 0.5; echo done"], 0);
      assert.deepEqual(outcome, { kind: "ok", stdout: "done\n", stderr: "" });
    });
  });

  describe("abort", () => {
    it("does not start anything when already aborted", async () => {
      const marker = join(dir, "started-anyway");
      const { outcome } = await timedRun(runner, ["sh", "-c", 'touch "$1"', "sh", marker], 10, AbortSignal.abort());
      assert.deepEqual(outcome, { kind: "aborted" });
      // A command started after it has run to its end: had the aborted one been spawned, it would have run by now.
      const later = join(dir, "ran-later");
      assert.equal((await timedRun(runner, ["sh", "-c", 'touch "$1"', "sh", later], 10)).outcome.kind, "ok");
      assert.equal(existsSync(later), true);
      assert.equal(existsSync(marker), false);
    });

    it("kills the whole process group when aborted while running", async () => {
      const pidFile = join(dir, "aborted.pid");
      const controller = new AbortController();
      const running = timedRun(runner, ["sh", "-c", 'sleep 60 & echo $! > "$1"; wait', "sh", pidFile], 0, controller.signal);
      const grandchild = await readPid(pidFile);
      controller.abort();
      const { outcome, elapsedMs } = await running;
      assert.deepEqual(outcome, { kind: "aborted" });
      assert.ok(elapsedMs < PROMPT_MS, `took ${elapsedMs} ms`);
      await assertDies(grandchild);
    });

    it("ignores an abort after the command ended", async () => {
      const controller = new AbortController();
      const { outcome } = await timedRun(runner, ["echo", "done"], 10, controller.signal);
      controller.abort();
      assert.deepEqual(outcome, { kind: "ok", stdout: "done\n", stderr: "" });
    });
  });

  describe("keeps the tail of output larger than the bound", () => {
    const small = new ProcessCommandRunner({ maxOutputBytes: 1024 });
    const total = 5 * 1024 * 1024;
    const writeBig = (stream: string) =>
      `const s = process.${stream}; const chunk = Buffer.alloc(65536, 'x'); let left = ${total - 7};` +
      "(function w() { while (left > 0) { const n = Math.min(left, chunk.length); left -= n; if (!s.write(chunk.subarray(0, n))) return s.once('drain', w); } s.write('THE-END'); })();";
    for (const stream of ["stdout", "stderr"] as const) {
      it(`on ${stream}`, async () => {
        const { outcome } = await timedRun(small, [NODE, "-e", writeBig(stream)], 30);
        assert.equal(outcome.kind, "ok");
        const text = outcome[stream];
        const prefix = `[... ${total - 1024} bytes dropped ...]\n`;
        assert.ok(text.startsWith(prefix), text.slice(0, 80));
        assert.equal(Buffer.byteLength(text) - prefix.length, 1024);
        assert.ok(text.endsWith("x".repeat(1017) + "THE-END"));
        assert.equal(outcome[stream === "stdout" ? "stderr" : "stdout"], "");
      });
    }

    it("without a broken character where the cut splits one", async () => {
      // 1000 two-byte characters: the last 1001 bytes start with the second byte of one, which is dropped too.
      const tiny = new ProcessCommandRunner({ maxOutputBytes: 1001 });
      const { outcome } = await timedRun(tiny, [NODE, "-e", "process.stdout.write('é'.repeat(1000))"], 10);
      assert.deepEqual(outcome, { kind: "ok", stdout: `[... 1000 bytes dropped ...]\n${"é".repeat(500)}`, stderr: "" });
    });

    it("keeps memory bounded when a child writes hundreds of megabytes", async () => {
      const rssBefore = process.memoryUsage.rss();
      const { outcome } = await timedRun(small, ["head", "-c", String(256 * 1024 * 1024), "/dev/zero"], 60);
      assert.equal(outcome.kind, "ok");
      assert.ok(outcome.stdout.startsWith(`[... ${256 * 1024 * 1024 - 1024} bytes dropped ...]\n`));
      const growth = process.memoryUsage.rss() - rssBefore;
      assert.ok(growth < 128 * 1024 * 1024, `rss grew by ${growth} bytes`);
    });
  });
  describe("keeps what the child wrote before it exited when the event loop is busy after the exit", () => {
    // libuv reaps every exited child when any one exits, so the runner can see an exit before it has read that
    // child's pipes; if the loop is then busy past the drain wait (200 health checks spawning at once), the timer
    // ran before the pipes were read and the output was lost: a repaired machine's "true" read as "". Here the exit
    // is emitted first on purpose, and the loop is kept busy while the real child writes and exits.
    const cases: { name: string; script: string; want: CommandOutcome }[] = [
      { name: "a health check's verdict on stdout", script: "echo true", want: { kind: "ok", stdout: "true\n", stderr: "" } },
      { name: "both streams", script: "echo out; echo err >&2", want: { kind: "ok", stdout: "out\n", stderr: "err\n" } },
    ];
    for (const { name, script, want } of cases) {
      it(name, async () => {
        const started: Array<{ real: ChildProcess; wrapper: EventEmitter }> = [];
        const exitFirst = new ProcessCommandRunner({
          spawn: (command, args, options) => {
            const real = spawn(command, args, options);
            const wrapper = Object.assign(new EventEmitter(), { pid: real.pid, stdout: real.stdout, stderr: real.stderr });
            started.push({ real, wrapper });
            return wrapper as unknown as ChildProcess;
          },
        });
        // From an immediate, so the loop's next phase is its timers, as when the exit came in a busy poll phase.
        const running = await new Promise<Promise<CommandOutcome>>((resolve) =>
          setImmediate(() => {
            const outcome = exitFirst.run(["sh", "-c", script], { timeoutSeconds: 30 });
            const { real, wrapper } = started[0]!;
            wrapper.emit("exit", 0, null);
            // The loop stays busy (the condition under test, not a wait) until the real child has written and
            // exited and the drain wait is long past.
            const from = Date.now();
            while (!(Date.now() - from > 500 && isZombie(real.pid!)) && Date.now() - from < PROMPT_MS);
            resolve(outcome);
          }),
        );
        assert.deepEqual(await running, want);
      });
    }
  });

  it("spawns one child an event-loop turn: a burst of commands lets the loop answer between the forks", async () => {
    let spawned = 0;
    const counted = new ProcessCommandRunner({
      spawn: (command, args, options) => {
        spawned++;
        return spawn(command, args, options);
      },
    });
    const outcomes = Array.from({ length: 8 }, () => counted.run(["true"], { timeoutSeconds: 30 }));
    assert.equal(spawned, 1, "the first at once, the others on later turns");
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(spawned < 8, `${spawned} spawned after one turn`);
    assert.deepEqual(
      await Promise.all(outcomes),
      Array.from({ length: 8 }, () => ({ kind: "ok", stdout: "", stderr: "" })),
    );
    assert.equal(spawned, 8);
  });
});
