import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import type { CaptureEvents, CaptureRequest } from "./command-capture.js";
import { asReport, encodeFrame, FrameReader } from "./spawner-protocol.js";

/** What becomes of a command started through a spawner: the capture's events, or `lost` when the spawner died first. */
export interface SpawnedEvents extends CaptureEvents {
  /** The spawner died before it reported the command's end: its process group has been SIGKILLed. */
  lost(message: string): void;
}

/** A command handed to the spawner. */
export interface SpawnedCommand {
  /** Gives up on the spawner (it does not answer): it is SIGKILLed, and each of its commands is `lost`. */
  abandon(why: string): void;
}

/** The spawner's process as the client uses it (a fake in tests). */
export interface SpawnerProcess {
  readonly pid: number | undefined;
  readonly input: Writable;
  readonly output: Readable;
  /** SIGKILLs it. */
  kill(): void;
  /** Calls `listener` once it has exited and its output is read to the end, or could not be started. */
  onGone(listener: (why: string) => void): void;
  /** Whether it keeps this process's event loop alive (while commands run). */
  keepAlive(on: boolean): void;
}

// The spawner's script beside this module as node resolves it from here: the .js in dist/ (and in the tests'
// transpiled tree, whose modules keep their .ts file's import.meta.url), the .ts under tsx, run through tsx.
const MAIN = new URL(import.meta.resolve("./spawner-main.js"));

/** Starts the spawner: node on spawner-main, in its own session (a terminal's signals are the replica's to act on). */
export function startSpawnerProcess(): SpawnerProcess {
  const loader = MAIN.pathname.endsWith(".ts") ? ["--import", import.meta.resolve("tsx")] : [];
  const child = spawn(process.execPath, [...loader, fileURLToPath(MAIN)], { stdio: ["pipe", "pipe", "inherit"], detached: true, env: process.env });
  child.stdin.on("error", () => {}); // a dead spawner is seen by its exit
  child.unref();
  return {
    pid: child.pid,
    input: child.stdin,
    output: child.stdout,
    kill: () => child.kill("SIGKILL"),
    onGone: (listener) => {
      child.once("error", (err) => listener(`could not start: ${err.message}`));
      child.once("close", (code, signal) => listener(code !== null ? `exit code ${code}` : `killed by ${signal ?? "a signal"}`));
    },
    keepAlive: (on) => {
      // Both: its exit is awaited after its output has ended.
      const pipe = child.stdout as Readable & { ref?: () => void; unref?: () => void };
      if (on) {
        pipe.ref?.();
        child.ref();
      } else {
        pipe.unref?.();
        child.unref();
      }
    },
  };
}

interface Spawner {
  readonly process: SpawnerProcess;
  readonly reader: FrameReader;
  readonly running: Map<number, Running>;
  gone: boolean;
}

interface Running {
  readonly events: SpawnedEvents;
  pid: number | null;
  exited: boolean;
}

/** The frame bound of reports: the two tails at their bound, each byte escaped by JSON at worst 6 bytes, and slack. */
const reportBound = (maxOutputBytes: number): number => 12 * maxOutputBytes + 64 * 1024;

/**
 * Starts a replica's commands in a small long-lived child process, the spawner (spawner-main.ts), instead of in the
 * replica: node's spawn forks the whole calling process on its event loop, 8-13 ms for a replica, a fraction of a
 * millisecond for the spawner. The spawner is started on the first command and again after it died. It dies with
 * the replica: it exits when its input ends, which the kernel sees to whatever killed the replica, and SIGKILLs the
 * process groups of its commands that still run; its exit closes their lifelines too. When the spawner dies first,
 * each command it had not reported ended is SIGKILLed (its group) and reported `lost`, never as a success.
 */
export class CommandSpawner {
  private current: Spawner | null = null;
  private nextId = 0;
  private largestTail = 0;

  /** `warn` hears each spawner that died or was killed while it had commands, and why. */
  constructor(
    private readonly startProcess: () => SpawnerProcess = startSpawnerProcess,
    private readonly warn?: (message: string, fields: Record<string, unknown>) => void,
  ) {}

  /** The spawner's pid, once one runs (for tests and logs). */
  get pid(): number | undefined {
    return this.current?.process.pid;
  }

  /** Hands `request` to the spawner (starting one if none runs); `events` hear what becomes of it. */
  start(request: CaptureRequest, events: SpawnedEvents): SpawnedCommand {
    this.largestTail = Math.max(this.largestTail, request.maxOutputBytes);
    const spawner = (this.current ??= this.open());
    spawner.reader.maxFrameBytes = reportBound(this.largestTail);
    const id = this.nextId++;
    spawner.running.set(id, { events, pid: null, exited: false });
    spawner.process.keepAlive(true);
    spawner.process.input.write(encodeFrame({ t: "run", id, ...request }));
    return { abandon: (why) => this.fail(spawner, why) };
  }

  private open(): Spawner {
    const spawned = this.startProcess();
    const reader = new FrameReader(reportBound(this.largestTail));
    const spawner: Spawner = { process: spawned, reader, running: new Map<number, Running>(), gone: false };
    spawned.output.on("data", (chunk: Buffer) => {
      if (spawner.gone) return;
      try {
        for (const value of reader.push(chunk)) this.dispatch(spawner, value);
      } catch (err) {
        this.fail(spawner, `sent what is not a report: ${(err as Error).message}`);
      }
    });
    spawned.output.on("error", () => {}); // a dead spawner is seen by its exit
    spawned.onGone((why) => this.gone(spawner, `the command spawner (pid ${spawned.pid ?? "none"}) died (${why})`));
    return spawner;
  }

  private dispatch(spawner: Spawner, value: unknown): void {
    const report = asReport(value);
    const command = report === null ? undefined : spawner.running.get(report.id);
    if (report === null || command === undefined) {
      this.fail(spawner, `sent an unexpected report: ${JSON.stringify(value).slice(0, 200)}`);
      return;
    }
    switch (report.t) {
      case "started":
        command.pid = report.pid;
        command.events.started(report.pid);
        return;
      case "exited":
        command.exited = true;
        command.events.exited(report.code, report.signal);
        return;
      case "ended":
        this.forget(spawner, report.id);
        command.events.ended(report.stdout, report.stderr);
        return;
      case "spawn-error":
        this.forget(spawner, report.id);
        command.events.spawnError(report.message);
        return;
    }
  }

  private forget(spawner: Spawner, id: number): void {
    spawner.running.delete(id);
    if (spawner.running.size === 0) spawner.process.keepAlive(false);
  }

  /** The spawner misbehaves or does not answer: it is killed, and its commands are lost once it has exited. */
  private fail(spawner: Spawner, why: string): void {
    if (spawner.gone) return;
    this.gone(spawner, `the command spawner (pid ${spawner.process.pid ?? "none"}) ${why}; it was killed`);
    spawner.process.kill();
  }

  private gone(spawner: Spawner, why: string): void {
    if (spawner.gone) return;
    spawner.gone = true;
    if (this.current === spawner) this.current = null;
    const running = [...spawner.running.values()];
    if (running.length > 0) this.warn?.(why, { commands: running.length });
    spawner.running.clear();
    spawner.process.keepAlive(false);
    for (const command of running) {
      // The lifeline's watcher kills a bound command's group when the spawner's end of it closes; this also reaches
      // an unbound one. A command that has exited is not signalled: its group is the runner's to kill, as always.
      if (command.pid !== null && !command.exited) {
        try {
          process.kill(-command.pid, "SIGKILL");
        } catch {
          // already gone
        }
      }
      command.events.lost(`${why} before it reported the command's end: its process group was killed if it still ran`);
    }
  }
}
