import type { Readable, Writable } from "node:stream";
import { startCapture, type SpawnFunction } from "./command-capture.js";
import { asRequest, encodeFrame, FrameReader, type SpawnerReport } from "./spawner-protocol.js";

/** The largest request the spawner reads: argv and environment together are bounded by the kernel's ARG_MAX far below. */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/**
 * The spawner's side of the protocol (see spawner-protocol.ts): starts each requested program with `spawn` and
 * reports on `output`. When `input` ends (the replica has died or let it go) or is not a sequence of requests, every
 * process group it started that still runs is SIGKILLed and `stop` is called: the spawner then exits, which closes
 * the lifelines it holds, so the launcher's watchers kill whatever is left of the groups as well.
 */
export function serveSpawner(input: Readable, output: Writable, spawn: SpawnFunction, stop: (why: string) => void): void {
  const running = new Map<number, number>();
  const reader = new FrameReader(MAX_REQUEST_BYTES);
  let stopped = false;
  const report = (message: SpawnerReport): void => {
    if (!stopped) output.write(encodeFrame(message));
  };
  const end = (why: string): void => {
    if (stopped) return;
    stopped = true;
    for (const pid of running.values()) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    stop(why);
  };

  input.on("data", (chunk: Buffer) => {
    let values: unknown[];
    try {
      values = reader.push(chunk);
    } catch (err) {
      end(`bad input: ${(err as Error).message}`);
      return;
    }
    for (const value of values) {
      const request = asRequest(value);
      if (request === null) {
        end(`not a request: ${JSON.stringify(value).slice(0, 200)}`);
        return;
      }
      const { id } = request;
      startCapture(spawn, request, {
        started: (pid) => {
          running.set(id, pid);
          report({ t: "started", id, pid });
        },
        exited: (code, signal) => {
          running.delete(id);
          report({ t: "exited", id, code, signal });
        },
        ended: (stdout, stderr) => report({ t: "ended", id, stdout, stderr }),
        spawnError: (message) => report({ t: "spawn-error", id, message }),
      });
    }
  });
  input.on("end", () => end("end of input"));
  input.on("error", (err) => end(`input: ${err.message}`));
  output.on("error", (err) => end(`output: ${err.message}`));
}
