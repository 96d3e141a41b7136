import { spawn } from "node:child_process";
import { startCapture, type CaptureRequest, type SpawnFunction } from "./command-capture.js";
import { findLauncher, launchCommand, resolveExecutable, type CommandLauncher } from "./command-launcher.js";
import { CommandSpawner, type SpawnedCommand, type SpawnedEvents } from "./command-spawner.js";
import type { CommandOptions, CommandOutcome, CommandRunner } from "./ports.js";
import { TurnQuota } from "../support/turn-quota.js";

/** Options of {@link ProcessCommandRunner}. */
export interface ProcessCommandRunnerOptions {
  /** How many bytes of stdout, and separately of stderr, are kept (the tail). Default 64 KiB. */
  readonly maxOutputBytes?: number;
  /** How long a killed process group gets between SIGTERM and SIGKILL. Default 2000 ms. */
  readonly killGraceMs?: number;
  /**
   * Starts the child in this process; node's `spawn` unless a test needs to order the child's events itself (such a
   * child is not bound to this process: the runner could not reach its lifeline, which would then keep this process
   * alive).
   */
  readonly spawn?: SpawnFunction;
  /**
   * Who starts the commands: default the process's one spawner (see command-spawner.ts); null this process itself,
   * one an event-loop turn (see `turns`), as with `spawn`.
   */
  readonly spawner?: CommandSpawner | null;
  /** What binds commands to this process (see command-launcher.ts); default: found on this machine; null: none. */
  readonly launcher?: CommandLauncher | null;
  /**
   * Told once when commands cannot be bound to this process's life (no launcher, or no backstop), and each time the
   * process's spawner dies while it has commands (the first runner built gives the process's spawner its `warn`).
   */
  readonly warn?: (message: string, fields: Record<string, unknown>) => void;
}

/** The backstop's slack past the timeout and the kill grace: the runner's own kill comes first when it can act. */
export const BACKSTOP_SLACK_SECONDS = 1;

let launcherOnThisMachine: ReturnType<typeof findLauncher> | undefined;
let warnedMissing = false;
/** The process's one spawner: every term builds a runner, and all share it. */
let spawnerOfThisProcess: CommandSpawner | undefined;
// While a killed group still has members, how often to look whether they are gone before the SIGKILL is due.
const GROUP_POLL_MS = 25;
// setTimeout fires at once for delays beyond 2^31-1 ms; such timeouts are capped to about 24.8 days.
const MAX_TIMER_MS = 2 ** 31 - 1;
// How long a spawner may take to report a command's exit once its group was SIGKILLed, or its output once it exited,
// before it counts as stuck (stopped, wedged) and is replaced: a command with a timeout must end even then.
const SPAWNER_ANSWER_MS = 5000;

/**
 * Runs commands as child processes without a shell. Each child leads its own process group, so a timeout or an abort
 * kills everything it started (SIGTERM, then SIGKILL after a grace period). The promise never rejects.
 *
 * The children are started by the process's spawner (see command-spawner.ts), so that forking them does not block
 * this process's event loop; timeouts, aborts and the kills are this process's, signalled to the groups directly.
 * Each command is also bound to this process (see command-launcher.ts): when this process dies, however, its
 * commands' groups are SIGKILLed; and a command with a timeout is SIGKILLed `timeout + grace + 1` seconds after it
 * started even when this process cannot act (frozen), so whoever inherits its step knows when it has ended.
 */
export class ProcessCommandRunner implements CommandRunner {
  private readonly maxOutputBytes: number;
  private readonly killGraceMs: number;
  private readonly spawn: SpawnFunction;
  private readonly spawner: CommandSpawner | null;
  private readonly launcher: CommandLauncher | null;

  /** @throws RangeError when an option is negative or not a finite number. */
  constructor(options: ProcessCommandRunnerOptions = {}) {
    this.maxOutputBytes = nonNegative("maxOutputBytes", options.maxOutputBytes ?? 64 * 1024);
    this.killGraceMs = nonNegative("killGraceMs", options.killGraceMs ?? 2000);
    this.spawn = options.spawn ?? spawn;
    this.spawner =
      options.spawn !== undefined
        ? null
        : options.spawner !== undefined
          ? options.spawner
          : (spawnerOfThisProcess ??= new CommandSpawner(undefined, options.warn));
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
            ? "commands have no watcher bound to their spawner: a command outlives a replica killed together with its command spawner, until its timeout (its successor waits it out)"
            : "commands have no backstop: a command of a frozen replica is not killed at its timeout (its successor waits its timeout and margin out all the same)",
          { missing },
        );
      }
    }
  }

  /**
   * Spawns in this process, one an event-loop turn. Spawning forks the whole process (its page tables: about 11-18 ms
   * here at 150-550 MB of RSS, more on a loaded machine) and blocks the event loop meanwhile, so 32 health checks
   * started at once held it 350 ms; one a turn, the loop answers (`/health`, the API) between them.
   */
  private readonly turns = new TurnQuota(1);

  /** Runs `argv[0]` with the other elements as its arguments, verbatim, and reports how it ended. */
  run(argv: readonly string[], options: CommandOptions): Promise<CommandOutcome> {
    if (this.spawner !== null) return this.start(argv, options);
    return new Promise((resolve) => this.turns.inTurn(() => resolve(this.start(argv, options))));
  }

  private start(argv: readonly string[], options: CommandOptions): Promise<CommandOutcome> {
    const command = argv[0];
    if (command === undefined) return Promise.resolve({ kind: "spawn-error", message: "empty command line" });
    const abortSignal = options.signal;
    if (abortSignal?.aborted) return Promise.resolve({ kind: "aborted" });

    const env = options.env ? { ...process.env, ...options.env } : process.env;
    // A command that cannot be found is started directly, so that it fails as spawn reports it (ENOENT, EACCES)
    // rather than as the launcher's exit 127.
    const bound = this.launcher !== null && this.spawn === spawn && resolveExecutable(command, env.PATH) !== null;
    const seconds = options.timeoutSeconds;
    const backstop = Number.isFinite(seconds) && seconds > 0 ? seconds + this.killGraceMs / 1000 + BACKSTOP_SLACK_SECONDS : 0;
    const launched = bound ? launchCommand(this.launcher as CommandLauncher, argv, backstop) : { command, args: argv.slice(1) };
    const request: CaptureRequest = { ...launched, env, lifeline: bound, maxOutputBytes: this.maxOutputBytes };

    return new Promise<CommandOutcome>((resolve) => {
      let pid: number | undefined;
      let exited: { code: number | null; signal: string | null } | null = null;
      let output: { stdout: string; stderr: string } | null = null;
      let lost: string | null = null;
      let killReason: "timeout" | "aborted" | null = null;
      let killed = false;
      let settled = false;
      let timeoutTimer: NodeJS.Timeout | undefined;
      let graceTimer: NodeJS.Timeout | undefined;
      let pollTimer: NodeJS.Timeout | undefined;
      let answerTimer: NodeJS.Timeout | undefined;
      let started: SpawnedCommand | undefined;

      const signalGroup = (sig: NodeJS.Signals | 0): boolean => {
        if (pid === undefined) return false;
        try {
          process.kill(-pid, sig);
          return true;
        } catch (err) {
          // EPERM: a member exists that we may not signal, so the group is not gone.
          return (err as NodeJS.ErrnoException).code === "EPERM";
        }
      };

      const settle = (outcome: CommandOutcome): void => {
        if (settled) return;
        settled = true;
        for (const t of [timeoutTimer, graceTimer, pollTimer, answerTimer]) clearTimeout(t);
        stopListening?.();
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
        if (output === null) return;
        const { stdout, stderr } = output;
        if (killReason === "timeout") settle({ kind: "timeout", timeoutSeconds: options.timeoutSeconds, stdout, stderr });
        else if (killReason === "aborted") settle({ kind: "aborted" });
        else if (lost !== null) settle({ kind: "exit", code: null, signal: "SIGKILL", stdout, stderr });
        else if (exited.code === 0) settle({ kind: "ok", stdout, stderr });
        else settle({ kind: "exit", code: exited.code, signal: exited.signal, stdout, stderr });
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
          awaitAnswer(`a command's end ${SPAWNER_ANSWER_MS} ms after its group was SIGKILLed`);
        }, this.killGraceMs);
      };

      // What the spawner must report by now comes within a few milliseconds, unless it is stopped or wedged.
      const awaitAnswer = (what: string): void => {
        if (settled || answerTimer !== undefined) return;
        answerTimer = setTimeout(() => started?.abandon(`did not report ${what}`), SPAWNER_ANSWER_MS);
      };

      const events: SpawnedEvents = {
        started: (p) => {
          pid = p;
          // A kill asked for before the spawner said where the command runs.
          if (killReason !== null) signalGroup(killed ? "SIGKILL" : "SIGTERM");
        },
        exited: (code, signal) => {
          exited = { code, signal };
          clearTimeout(timeoutTimer);
          stopListening?.();
          tryFinish();
          awaitAnswer(`a command's output ${SPAWNER_ANSWER_MS} ms after its exit`);
        },
        ended: (stdout, stderr) => {
          output = { stdout, stderr };
          tryFinish();
        },
        spawnError: (message) => settle({ kind: "spawn-error", message: `cannot start ${JSON.stringify(command)}: ${message}` }),
        lost: (message) => {
          lost = message;
          killed = true;
          exited ??= { code: null, signal: "SIGKILL" };
          output = { stdout: "", stderr: message };
          tryFinish();
        },
      };

      if (Number.isFinite(seconds) && seconds > 0) {
        timeoutTimer = setTimeout(() => killGroup("timeout"), Math.min(seconds * 1000, MAX_TIMER_MS));
      }
      const stopListening = abortSignal && onAbortOf(abortSignal, () => killGroup("aborted"));
      if (this.spawner !== null) started = this.spawner.start(request, events);
      else startCapture(this.spawn, request, events);
    });
  }
}

/** The commands waiting for each signal's abort: one listener a signal, however many commands a pass runs under it. */
const abortWaiters = new WeakMap<AbortSignal, Set<() => void>>();

/** Calls `listener` when `signal` aborts, until the returned function is called. */
function onAbortOf(signal: AbortSignal, listener: () => void): () => void {
  let waiters = abortWaiters.get(signal);
  if (waiters === undefined) {
    const all = new Set<() => void>();
    abortWaiters.set(signal, all);
    signal.addEventListener("abort", () => [...all].forEach((waiter) => waiter()), { once: true });
    waiters = all;
  }
  const own = waiters;
  own.add(listener);
  return () => own.delete(listener);
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a non-negative number, got ${value}`);
  return Math.floor(value);
}
