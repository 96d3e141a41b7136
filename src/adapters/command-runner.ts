import { spawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import type { Socket } from "node:net";
import { findLauncher, launchCommand, LIFELINE_FD, resolveExecutable, type CommandLauncher } from "./command-launcher.js";
import type { CommandOptions, CommandOutcome, CommandRunner } from "./ports.js";
import { SpawnTurns } from "./spawn-turns.js";

/** Options of {@link ProcessCommandRunner}. */
export interface ProcessCommandRunnerOptions {
  /** How many bytes of stdout, and separately of stderr, are kept (the tail). Default 64 KiB. */
  readonly maxOutputBytes?: number;
  /** How long a killed process group gets between SIGTERM and SIGKILL. Default 2000 ms. */
  readonly killGraceMs?: number;
  /**
   * Starts the child; node's `spawn` unless a test needs to order the child's events itself (such a child is not
   * bound to this process: the runner could not reach its lifeline, which would then keep this process alive).
   */
  readonly spawn?: (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;
  /** What binds commands to this process (see command-launcher.ts); default: found on this machine; null: none. */
  readonly launcher?: CommandLauncher | null;
  /** Told once when commands cannot be bound to this process's life (no launcher, or no backstop). */
  readonly warn?: (message: string, fields: Record<string, unknown>) => void;
}

/** The backstop's slack past the timeout and the kill grace: the runner's own kill comes first when it can act. */
export const BACKSTOP_SLACK_SECONDS = 1;

let launcherOnThisMachine: ReturnType<typeof findLauncher> | undefined;
let warnedMissing = false;

// Once the child has exited, output still buffered in the pipes is read for this long at most: a grandchild may hold
// the pipes open indefinitely, and its output is not the command's. The wait ends only after the event loop has read
// the pipes once more (see the exit handler), so a busy loop cannot cut off what the child wrote before it exited.
const DRAIN_MS = 100;
// While a killed group still has members, how often to look whether they are gone before the SIGKILL is due.
const GROUP_POLL_MS = 25;
// setTimeout fires at once for delays beyond 2^31-1 ms; such timeouts are capped to about 24.8 days.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Keeps the last `limit` bytes written to it and counts the rest, so memory stays bounded whatever the child writes. */
class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  private dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit) {
      const first = this.chunks[0]!;
      const excess = this.size - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
        this.dropped += first.length;
      } else {
        // Copy so the kept slice does not pin the whole original chunk.
        this.chunks[0] = Buffer.from(first.subarray(excess));
        this.size -= excess;
        this.dropped += excess;
      }
    }
  }

  /** The kept tail as UTF-8, prefixed with a note when bytes were dropped. */
  text(): string {
    let bytes = Buffer.concat(this.chunks, this.size);
    if (this.dropped === 0) return bytes.toString("utf8");
    // The cut may split a multi-byte character; drop its continuation bytes instead of decoding them to U+FFFD.
    let start = 0;
    while (start < 3 && start < bytes.length && (bytes[start]! & 0xc0) === 0x80) start++;
    bytes = bytes.subarray(start);
    return `[... ${this.dropped + start} bytes dropped ...]\n${bytes.toString("utf8")}`;
  }
}

/**
 * Runs commands as child processes without a shell. Each child leads its own process group, so a timeout or an abort
 * kills everything it started (SIGTERM, then SIGKILL after a grace period). The promise never rejects.
 *
 * Each command is also bound to this process (see command-launcher.ts): when this process dies, however, its
 * commands' groups are SIGKILLed; and a command with a timeout is SIGKILLed `timeout + grace + 1` seconds after it
 * started even when this process cannot act (frozen), so whoever inherits its step knows when it has ended.
 */
export class ProcessCommandRunner implements CommandRunner {
  private readonly maxOutputBytes: number;
  private readonly killGraceMs: number;
  private readonly spawn: NonNullable<ProcessCommandRunnerOptions["spawn"]>;
  private readonly launcher: CommandLauncher | null;

  /** @throws RangeError when an option is negative or not a finite number. */
  constructor(options: ProcessCommandRunnerOptions = {}) {
    this.maxOutputBytes = nonNegative("maxOutputBytes", options.maxOutputBytes ?? 64 * 1024);
    this.killGraceMs = nonNegative("killGraceMs", options.killGraceMs ?? 2000);
    this.spawn = options.spawn ?? spawn;
    if (options.launcher !== undefined) {
      this.launcher = options.launcher;
    } else {
      launcherOnThisMachine ??= findLauncher();
      this.launcher = launcherOnThisMachine.launcher;
      const { missing } = launcherOnThisMachine;
      // Once per process: every term builds a runner.
      if (missing.length > 0 && options.warn && !warnedMissing) {
        warnedMissing = true;
        options.warn(
          this.launcher === null
            ? "commands are not bound to this replica: a command outlives a replica that is killed, until its timeout (its successor waits it out)"
            : "commands have no backstop: a command of a frozen replica is not killed at its timeout (its successor waits its timeout and margin out all the same)",
          { missing },
        );
      }
    }
  }

  /** Spawns, one an event-loop turn (see SpawnTurns). */
  private readonly turns = new SpawnTurns();

  /** Runs `argv[0]` with the other elements as its arguments, verbatim, and reports how it ended. */
  run(argv: readonly string[], options: CommandOptions): Promise<CommandOutcome> {
    return new Promise((resolve) => this.turns.inTurn(() => resolve(this.start(argv, options))));
  }

  private start(argv: readonly string[], options: CommandOptions): Promise<CommandOutcome> {
    const command = argv[0];
    if (command === undefined) return Promise.resolve({ kind: "spawn-error", message: "empty command line" });
    const abortSignal = options.signal;
    if (abortSignal?.aborted) return Promise.resolve({ kind: "aborted" });

    let child: ChildProcess;
    let lifeline: Socket | null = null;
    try {
      const env = options.env ? { ...process.env, ...options.env } : process.env;
      // A command that cannot be found is started directly, so that it fails as spawn reports it (ENOENT, EACCES)
      // rather than as the launcher's exit 127.
      const bound = this.launcher !== null && this.spawn === spawn && resolveExecutable(command, env.PATH) !== null;
      const seconds = options.timeoutSeconds;
      const backstop = Number.isFinite(seconds) && seconds > 0 ? seconds + this.killGraceMs / 1000 + BACKSTOP_SLACK_SECONDS : 0;
      const launched = bound ? launchCommand(this.launcher as CommandLauncher, argv, backstop) : { command, args: argv.slice(1) };
      const stdio: SpawnOptions["stdio"] = bound ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"];
      child = this.spawn(launched.command, launched.args, { shell: false, stdio, detached: true, env });
      lifeline = bound ? ((child.stdio?.[LIFELINE_FD] as Socket | null | undefined) ?? null) : null;
      // The lifeline must not keep this process alive, and the watcher may be gone when it is let go.
      lifeline?.on("error", () => {});
      lifeline?.unref();
    } catch (err) {
      // spawn throws synchronously for invalid arguments, e.g. a NUL byte.
      return Promise.resolve({ kind: "spawn-error", message: `cannot start ${JSON.stringify(command)}: ${errorMessage(err)}` });
    }

    return new Promise<CommandOutcome>((resolve) => {
      const stdout = new TailBuffer(this.maxOutputBytes);
      const stderr = new TailBuffer(this.maxOutputBytes);
      let openStreams = 0;
      let exited: { code: number | null; signal: string | null } | null = null;
      let killReason: "timeout" | "aborted" | null = null;
      let killed = false;
      let drained = false;
      let settled = false;
      let timeoutTimer: NodeJS.Timeout | undefined;
      let graceTimer: NodeJS.Timeout | undefined;
      let drainTimer: NodeJS.Timeout | undefined;
      let pollTimer: NodeJS.Timeout | undefined;
      let drainRead: NodeJS.Immediate | undefined;

      // The command has ended (or never ran): its watcher may go, leaving the rest of the group to the kill below.
      const letGo = (): void => {
        if (lifeline === null) return;
        lifeline.end("\n");
        lifeline = null;
      };

      const signalGroup = (sig: NodeJS.Signals | 0): boolean => {
        if (child.pid === undefined) return false;
        try {
          process.kill(-child.pid, sig);
          return true;
        } catch (err) {
          // EPERM: a member exists that we may not signal, so the group is not gone.
          return (err as NodeJS.ErrnoException).code === "EPERM";
        }
      };

      const settle = (outcome: CommandOutcome): void => {
        if (settled) return;
        settled = true;
        letGo();
        for (const t of [timeoutTimer, graceTimer, drainTimer, pollTimer]) clearTimeout(t);
        clearImmediate(drainRead);
        abortSignal?.removeEventListener("abort", onAbort);
        // A surviving grandchild may hold the pipes open; letting go of our ends keeps it from pinning this process.
        child.stdout?.destroy();
        child.stderr?.destroy();
        resolve(outcome);
      };

      const tryFinish = (): void => {
        if (settled || exited === null) return;
        if (killReason !== null && !killed && signalGroup(0)) {
          pollTimer ??= setTimeout(() => {
            pollTimer = undefined;
            tryFinish();
          }, GROUP_POLL_MS);
          return;
        }
        if (openStreams > 0 && !drained) return;
        const out = stdout.text();
        const err = stderr.text();
        if (killReason === "timeout") settle({ kind: "timeout", timeoutSeconds: options.timeoutSeconds, stdout: out, stderr: err });
        else if (killReason === "aborted") settle({ kind: "aborted" });
        else if (exited.code === 0) settle({ kind: "ok", stdout: out, stderr: err });
        else settle({ kind: "exit", code: exited.code, signal: exited.signal, stdout: out, stderr: err });
      };

      const killGroup = (reason: "timeout" | "aborted"): void => {
        if (settled || exited !== null || killReason !== null) return;
        killReason = reason;
        clearTimeout(timeoutTimer);
        signalGroup("SIGTERM");
        graceTimer = setTimeout(() => {
          graceTimer = undefined;
          signalGroup("SIGKILL");
          killed = true;
          tryFinish();
        }, this.killGraceMs);
      };

      function onAbort(): void {
        killGroup("aborted");
      }

      for (const [stream, sink] of [
        [child.stdout, stdout],
        [child.stderr, stderr],
      ] as const) {
        if (stream === null) continue;
        openStreams++;
        stream.on("data", (chunk: Buffer) => sink.push(chunk));
        stream.on("error", () => {}); // a read error only ends the capture early
        stream.on("close", () => {
          openStreams--;
          tryFinish();
        });
      }

      child.on("error", (err) => {
        if (exited === null && child.pid === undefined) {
          settle({ kind: "spawn-error", message: `cannot start ${JSON.stringify(command)}: ${err.message}` });
        }
      });

      child.on("exit", (code, signal) => {
        exited = { code, signal };
        letGo();
        clearTimeout(timeoutTimer);
        abortSignal?.removeEventListener("abort", onAbort);
        if (openStreams > 0) {
          // The exit can be seen before the pipes are read (libuv reaps every exited child at once), and a loop busy
          // past DRAIN_MS runs this timer before it polls the pipes again: the output the child wrote before it
          // exited (a health check's "true") would be lost. An immediate runs after that poll has read it.
          drainTimer = setTimeout(() => {
            drainTimer = undefined;
            drainRead = setImmediate(() => {
              drainRead = undefined;
              drained = true;
              tryFinish();
            });
          }, DRAIN_MS);
        }
        tryFinish();
      });

      const seconds = options.timeoutSeconds;
      if (Number.isFinite(seconds) && seconds > 0) {
        timeoutTimer = setTimeout(() => killGroup("timeout"), Math.min(seconds * 1000, MAX_TIMER_MS));
      }
      abortSignal?.addEventListener("abort", onAbort, { once: true });
    });
  }
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  return Math.floor(value);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
