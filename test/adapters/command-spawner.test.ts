import assert from "node:assert/strict";
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { after, before, describe, it } from "node:test";
import type { CaptureRequest } from "../../src/adapters/command-capture.js";
import { ProcessCommandRunner } from "../../src/adapters/command-runner.js";
import { CommandSpawner, type SpawnedEvents, type SpawnerProcess } from "../../src/adapters/command-spawner.js";
import { encodeFrame, FrameReader, type SpawnerReport, type SpawnerRequest } from "../../src/adapters/spawner-protocol.js";
import { serveSpawner } from "../../src/adapters/spawner-serve.js";
import { tempDir } from "../support/temp-dir.js";
import { isAlive, pidIn } from "../support/process-alive.js";
import { until } from "../support/until.js";

/** A spawner process of streams: the test reads the requests and writes the reports. */
class FakeSpawnerProcess implements SpawnerProcess {
  readonly input = new PassThrough();
  readonly output = new PassThrough();
  readonly requests: SpawnerRequest[] = [];
  kept = false;
  killed = false;
  private goneListener: ((why: string) => void) | undefined;

  constructor(readonly pid: number) {
    const reader = new FrameReader(1 << 20);
    this.input.on("data", (chunk: Buffer) => this.requests.push(...(reader.push(chunk) as SpawnerRequest[])));
  }

  report(message: SpawnerReport | Buffer): void {
    this.output.write(Buffer.isBuffer(message) ? message : encodeFrame(message));
  }
  kill(): void {
    this.killed = true;
    this.die("killed by SIGKILL");
  }
  die(why: string): void {
    this.output.end();
    this.goneListener?.(why);
  }
  onGone(listener: (why: string) => void): void {
    this.goneListener = listener;
  }
  keepAlive(on: boolean): void {
    this.kept = on;
  }
}

/** Events as a list of lines, in the order they came. */
function recorder(): { events: SpawnedEvents; log: string[] } {
  const log: string[] = [];
  return {
    log,
    events: {
      started: (pid) => log.push(`started ${pid}`),
      exited: (code, signal) => log.push(`exited ${code} ${signal}`),
      ended: (stdout, stderr) => log.push(`ended ${JSON.stringify(stdout)} ${JSON.stringify(stderr)}`),
      spawnError: (message) => log.push(`spawn-error ${message}`),
      lost: (message) => log.push(`lost ${message}`),
    },
  };
}

const request = (argv: string[], maxOutputBytes = 1024): CaptureRequest => ({
  command: argv[0]!,
  args: argv.slice(1),
  env: { PATH: process.env.PATH },
  lifeline: false,
  maxOutputBytes,
});

/** Waits for the fake to have read `n` requests. */
const requestsRead = (fake: FakeSpawnerProcess, n: number) => until(`${n} requests read`, () => fake.requests.length >= n);

describe("CommandSpawner, the replica's side, with a fake spawner", () => {
  let sleeper: ChildProcess | undefined;
  after(() => sleeper?.kill("SIGKILL"));

  function setup(): { spawner: CommandSpawner; fakes: FakeSpawnerProcess[]; warnings: string[] } {
    const fakes: FakeSpawnerProcess[] = [];
    const warnings: string[] = [];
    const spawner = new CommandSpawner(
      () => {
        const fake = new FakeSpawnerProcess(900_000 + fakes.length);
        fakes.push(fake);
        return fake;
      },
      (message, fields) => warnings.push(`${message} ${JSON.stringify(fields)}`),
    );
    return { spawner, fakes, warnings };
  }

  it("hands each request over with its own id and routes each report to the command it names, in order", async () => {
    const { spawner, fakes } = setup();
    const [a, b] = [recorder(), recorder()];
    spawner.start(request(["echo", "a"]), a.events);
    spawner.start(request(["kintsugi-no-such-command"]), b.events);
    const fake = fakes[0]!;
    assert.equal(fakes.length, 1, "one spawner for both");
    assert.equal(fake.kept, true, "it keeps this process alive while commands run");
    await requestsRead(fake, 2);
    assert.deepEqual(
      fake.requests.map((r) => [r.id, r.command, r.args]),
      [
        [0, "echo", ["a"]],
        [1, "kintsugi-no-such-command", []],
      ],
    );
    fake.report({ t: "spawn-error", id: 1, message: "spawn kintsugi-no-such-command ENOENT" });
    fake.report({ t: "started", id: 0, pid: 1234 });
    fake.report({ t: "exited", id: 0, code: 0, signal: null });
    fake.report({ t: "ended", id: 0, stdout: "a\n", stderr: "" });
    await until("both commands heard their end", () => a.log.length === 3 && b.log.length === 1);
    assert.deepEqual(a.log, ["started 1234", "exited 0 null", 'ended "a\\n" ""']);
    assert.deepEqual(b.log, ["spawn-error spawn kintsugi-no-such-command ENOENT"]);
    assert.equal(fake.kept, false, "idle, it does not keep this process alive");
  });

  it("a spawner that dies mid-command: its commands are lost (never a success), their groups SIGKILLed; the next command gets a new spawner", async () => {
    const { spawner, fakes, warnings } = setup();
    // A real process group for the command the spawner says it started.
    sleeper = spawn("sleep", ["600"], { detached: true, stdio: "ignore" });
    const groupPid = sleeper.pid!;
    const running = recorder();
    spawner.start(request(["sleep", "600"]), running.events);
    fakes[0]!.report({ t: "started", id: 0, pid: groupPid });
    await until("the start was heard", () => running.log.length === 1);
    fakes[0]!.die("killed by SIGKILL");
    assert.equal(running.log.length, 2);
    assert.match(running.log[1]!, /^lost the command spawner \(pid 900000\) died \(killed by SIGKILL\) before it reported the command's end/);
    await until("the command's group was killed", () => !isAlive(groupPid));
    assert.equal(fakes[0]!.kept, false);
    assert.deepEqual(warnings, ['the command spawner (pid 900000) died (killed by SIGKILL) {"commands":1}']);

    const next = recorder();
    spawner.start(request(["true"]), next.events);
    assert.equal(fakes.length, 2, "a new spawner was started");
    assert.equal(spawner.pid, 900_001);
    await requestsRead(fakes[1]!, 1);
    fakes[1]!.report({ t: "started", id: 1, pid: 4321 });
    fakes[1]!.report({ t: "exited", id: 1, code: 0, signal: null });
    fakes[1]!.report({ t: "ended", id: 1, stdout: "", stderr: "" });
    await until("the next command ended", () => next.log.length === 3);
    assert.deepEqual(next.log, ["started 4321", "exited 0 null", 'ended "" ""']);
  });

  describe("a spawner that sends what is not a report is killed and its commands lost", () => {
    const header = Buffer.alloc(4);
    header.writeUInt32BE(0xfffffff0);
    const cases: { name: string; sent: SpawnerReport | Buffer; reason: RegExp }[] = [
      { name: "a frame over the bound (refused from its header)", sent: header, reason: /a frame of 4294967280 bytes/ },
      { name: "a frame that is not JSON", sent: Buffer.concat([Buffer.from([0, 0, 0, 2]), Buffer.from("{x")]), reason: /not JSON/ },
      { name: "a report for a command it was not given", sent: { t: "started", id: 77, pid: 1234 }, reason: /unexpected report/ },
      { name: "a report of a pid that is no process group", sent: { t: "started", id: 0, pid: 0 }, reason: /unexpected report/ },
    ];
    for (const c of cases) {
      it(c.name, async () => {
        const { spawner, fakes } = setup();
        const running = recorder();
        spawner.start(request(["true"]), running.events);
        fakes[0]!.report(c.sent);
        await until("the command was lost", () => running.log.length === 1);
        assert.equal(fakes[0]!.killed, true);
        assert.match(running.log[0]!, /^lost /);
        assert.match(running.log[0]!, c.reason);
      });
    }
  });

  it("a runner gives up on a spawner that reported an exit but never the output: the command is reported killed, never a success", async () => {
    const { spawner, fakes } = setup();
    const runner = new ProcessCommandRunner({ spawner });
    const outcome = runner.run(["true"], { timeoutSeconds: 30 });
    await requestsRead(fakes[0]!, 1);
    fakes[0]!.report({ t: "started", id: 0, pid: 4321 });
    fakes[0]!.report({ t: "exited", id: 0, code: 0, signal: null });
    const { kind, ...rest } = (await outcome) as { kind: string; stderr: string };
    assert.equal(kind, "exit");
    assert.match(rest.stderr, /^the command spawner \(pid 900000\) did not report a command's output 5000 ms after its exit; it was killed/);
    assert.equal(fakes[0]!.killed, true);
  });

  it("the bound of a report follows the largest tail asked of the spawner so far", async () => {
    const { spawner, fakes } = setup();
    const [small, large] = [recorder(), recorder()];
    spawner.start(request(["true"], 1024), small.events);
    spawner.start(request(["true"], 65536), large.events);
    fakes[0]!.report({ t: "started", id: 1, pid: 4321 });
    fakes[0]!.report({ t: "exited", id: 1, code: 0, signal: null });
    fakes[0]!.report({ t: "ended", id: 1, stdout: "\u0001".repeat(65536), stderr: "\u0001".repeat(65536) });
    await until("the large report was heard", () => large.log.length === 3);
    assert.match(large.log[2]!, /^ended /);
    assert.equal(fakes[0]!.killed, false);
  });

  it("abandon kills a spawner that does not answer, and its commands are lost", async () => {
    const { spawner, fakes } = setup();
    const [a, b] = [recorder(), recorder()];
    const command = spawner.start(request(["true"]), a.events);
    spawner.start(request(["true"]), b.events);
    command.abandon("did not answer");
    assert.equal(fakes[0]!.killed, true);
    for (const { log } of [a, b]) {
      assert.equal(log.length, 1);
      assert.match(log[0]!, /^lost the command spawner \(pid 900000\) did not answer; it was killed before it reported the command's end/);
    }
  });
});

describe("serveSpawner, the spawner's side, over streams and real children", () => {
  let dir: ReturnType<typeof tempDir>;
  before(() => (dir = tempDir("kintsugi-spawner-")));
  after(() => dir.remove());

  function serve(): { input: PassThrough; reports: SpawnerReport[]; stopped: () => string | null } {
    const input = new PassThrough();
    const output = new PassThrough();
    const reports: SpawnerReport[] = [];
    const reader = new FrameReader(1 << 24);
    output.on("data", (chunk: Buffer) => reports.push(...(reader.push(chunk) as SpawnerReport[])));
    let stoppedWhy: string | null = null;
    serveSpawner(input, output, spawn, (why) => (stoppedWhy = why));
    return { input, reports, stopped: () => stoppedWhy };
  }
  const run = (id: number, argv: string[], maxOutputBytes = 1024): Buffer => encodeFrame({ t: "run", id, ...request(argv, maxOutputBytes) });

  it("reports a command's start, exit and the tails of its output, and a spawn error alone", async () => {
    const { input, reports } = serve();
    input.write(Buffer.concat([run(0, ["sh", "-c", "echo out; echo err >&2; exit 3"]), run(1, ["kintsugi-no-such-command"])]));
    await until("both commands reported their end", () => reports.filter((r) => r.t === "ended" || r.t === "spawn-error").length === 2);
    const of = (id: number) => reports.filter((r) => r.id === id).map(({ t }) => t);
    assert.deepEqual(of(0), ["started", "exited", "ended"]);
    assert.deepEqual(of(1), ["spawn-error"]);
    assert.deepEqual(
      reports.filter((r) => r.id === 0 && r.t !== "started"),
      [
        { t: "exited", id: 0, code: 3, signal: null },
        { t: "ended", id: 0, stdout: "out\n", stderr: "err\n" },
      ],
    );
    assert.match((reports.find((r) => r.id === 1) as { message: string }).message, /ENOENT/);
  });

  it("keeps only the tail of huge output: a report stays within its bound whatever the command writes", async () => {
    const { input, reports } = serve();
    input.write(run(0, ["head", "-c", String(32 * 1024 * 1024), "/dev/zero"], 1000));
    const ended = (await until("the command ended", () => reports.find((r) => r.t === "ended"))) as { stdout: string };
    assert.equal(ended.stdout, `[... ${32 * 1024 * 1024 - 1000} bytes dropped ...]\n${"\u0000".repeat(1000)}`);
    assert.ok(encodeFrame(ended as SpawnerReport).length < 12 * 1000 + 64 * 1024, "within the replica's bound of a report");
  });

  it("at the end of its input, SIGKILLs the groups of the commands that still run and stops", async () => {
    const { input, reports, stopped } = serve();
    const [grandchildFile, commandFile] = [join(dir.path, "gc"), join(dir.path, "cmd")];
    input.write(run(0, ["sh", "-c", 'sleep 600 & echo $! > "$1"; echo $$ > "$2"; wait', "sh", grandchildFile, commandFile]));
    const pids = [await pidIn(grandchildFile), await pidIn(commandFile)];
    assert.ok(pids.every(isAlive));
    input.end();
    await until("the spawner stopped", stopped, (why) => why === "end of input");
    await until(
      "the command and its child died",
      () => pids.filter(isAlive),
      (alive) => alive.length === 0,
    );
    assert.deepEqual(
      reports.map((r) => r.t),
      ["started"],
      "nothing is reported once it has stopped",
    );
  });

  it("stops at input that is not a request", async () => {
    const { input, stopped } = serve();
    input.write(encodeFrame({ t: "started", id: 0, pid: 1 }));
    await until("the spawner stopped", stopped, (why) => why !== null);
    assert.match(stopped()!, /^not a request/);
  });
});
