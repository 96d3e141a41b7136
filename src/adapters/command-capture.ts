import type { ChildProcess, SpawnOptions } from "node:child_process";
import type { Socket } from "node:net";
import { LIFELINE_FD } from "./command-launcher.js";

/** Starts a child as node's `spawn` does. */
export type SpawnFunction = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

/** What to start: the program (the launcher, or the command itself), its arguments and its whole environment. */
export interface CaptureRequest {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether the program gets a lifeline on LIFELINE_FD (the launcher's watcher reads it; see command-launcher.ts). */
  readonly lifeline: boolean;
  /** How many bytes of stdout, and separately of stderr, are kept (the tail). */
  readonly maxOutputBytes: number;
}

/** What becomes of a started program, in this order: started, exited, ended; or spawnError alone. */
export interface CaptureEvents {
  /** The program runs as `pid`, the leader of its own process group. */
  started(pid: number): void;
  /** The program has exited (its output may still be in the pipes). */
  exited(code: number | null, signal: string | null): void;
  /** The output has been read: the tails of stdout and stderr. */
  ended(stdout: string, stderr: string): void;
  /** It could not be started: node's message (ENOENT, EACCES, a NUL byte). */
  spawnError(message: string): void;
}

// Once the child has exited, output still buffered in the pipes is read for this long at most: a grandchild may hold
// the pipes open indefinitely, and its output is not the command's. The wait ends only after the event loop has read
// the pipes once more (see the exit handler), so a busy loop cannot cut off what the child wrote before it exited.
const DRAIN_MS = 100;

/** Keeps the last `limit` bytes written to it and counts the rest, so memory stays bounded whatever the child writes. */
export class TailBuffer {
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
 * Starts `request` as its own process group and reports what becomes of it through `events`: the pid, the exit, then
 * the tails of its output once its pipes are drained. The lifeline (when asked for) is let go as soon as the program
 * exits: what it left running in its group is then the runner's to kill, not the watcher's. Never throws.
 */
export function startCapture(spawn: SpawnFunction, request: CaptureRequest, events: CaptureEvents): void {
  let child: ChildProcess;
  let lifeline: Socket | null = null;
  try {
    const stdio: SpawnOptions["stdio"] = request.lifeline ? ["ignore", "pipe", "pipe", "pipe"] : ["ignore", "pipe", "pipe"];
    child = spawn(request.command, request.args, { shell: false, stdio, detached: true, env: request.env });
    lifeline = request.lifeline ? ((child.stdio?.[LIFELINE_FD] as Socket | null | undefined) ?? null) : null;
    // The lifeline must not keep this process alive, and the watcher may be gone when it is let go.
    lifeline?.on("error", () => {});
    lifeline?.unref();
  } catch (err) {
    // spawn throws synchronously for invalid arguments, e.g. a NUL byte.
    events.spawnError(err instanceof Error ? err.message : String(err));
    return;
  }

  const stdout = new TailBuffer(request.maxOutputBytes);
  const stderr = new TailBuffer(request.maxOutputBytes);
  let openStreams = 0;
  let exited = false;
  let drained = false;
  let done = false;
  let drainTimer: NodeJS.Timeout | undefined;
  let drainRead: NodeJS.Immediate | undefined;

  // The program has ended (or never ran): its watcher may go, leaving the rest of the group to the runner.
  const letGo = (): void => {
    if (lifeline === null) return;
    lifeline.end("\n");
    lifeline = null;
  };

  const finish = (): void => {
    done = true;
    letGo();
    clearTimeout(drainTimer);
    clearImmediate(drainRead);
    // A surviving grandchild may hold the pipes open; letting go of our ends keeps it from pinning this process.
    child.stdout?.destroy();
    child.stderr?.destroy();
  };

  const tryEnd = (): void => {
    if (done || !exited || (openStreams > 0 && !drained)) return;
    finish();
    events.ended(stdout.text(), stderr.text());
  };

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
      tryEnd();
    });
  }

  child.on("error", (err) => {
    if (!done && !exited && child.pid === undefined) {
      finish();
      events.spawnError(err.message);
    }
  });

  child.on("exit", (code, signal) => {
    if (done) return;
    exited = true;
    letGo();
    events.exited(code, signal);
    if (openStreams > 0) {
      // The exit can be seen before the pipes are read (libuv reaps every exited child at once), and a loop busy
      // past DRAIN_MS runs this timer before it polls the pipes again: the output the child wrote before it
      // exited (a health check's "true") would be lost. An immediate runs after that poll has read it.
      drainTimer = setTimeout(() => {
        drainTimer = undefined;
        drainRead = setImmediate(() => {
          drainRead = undefined;
          drained = true;
          tryEnd();
        });
      }, DRAIN_MS);
    }
    tryEnd();
  });

  if (child.pid !== undefined) events.started(child.pid);
}
