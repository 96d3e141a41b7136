import { spawn, type ChildProcess } from "node:child_process";
import { KINTSUGI_BIN } from "./run-cli.js";

/** A running `kintsugi` child process whose output is read as it comes (through pipes: no terminal). */
export interface CliProcess {
  readonly child: ChildProcess;
  /** The exit code once it exited and its output was read (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /**
   * The exit code, or "still running" (and the process killed) after `withinMs`: a test that expects it to stop fails
   * instead of hanging when it does not.
   */
  exitWithin(withinMs: number): Promise<number | null | "still running">;
  /** What it printed so far. */
  out(): string;
  err(): string;
  /** Ends it with SIGKILL unless it already exited (for `finally` blocks). */
  kill(): void;
}

/**
 * Starts the real binary with `args` in `cwd`, stdout and stderr piped, in this process's environment less
 * KINTSUGI_TOKEN plus `env`. For commands that run until stopped (`watch`, `wait`, `serve`) whose output a test
 * follows while it acts.
 */
export function startCli(args: readonly string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): CliProcess {
  const { KINTSUGI_TOKEN: _token, ...inherited } = process.env;
  const child = spawn(process.execPath, [KINTSUGI_BIN, ...args], {
    cwd: options.cwd,
    env: { ...inherited, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  // "close", not "exit": by then everything it printed has been read.
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  const kill = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  return {
    child,
    exited,
    async exitWithin(withinMs) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<"still running">((resolve) => (timer = setTimeout(() => resolve("still running"), withinMs)));
      const result = await Promise.race([exited, deadline]);
      clearTimeout(timer);
      if (result === "still running") {
        kill();
        await exited;
      }
      return result;
    },
    out: () => stdout,
    err: () => stderr,
    kill,
  };
}
