import { main } from "../../src/cli/main.js";
import type { CliResult } from "./run-cli.js";

export interface InProcessCliOptions {
  /** The working directory the command runs in (relative paths in its arguments are read from there). */
  readonly cwd?: string;
  /** The whole environment the command sees, as runCli's `env`; without it, this process's less KINTSUGI_TOKEN. */
  readonly env?: NodeJS.ProcessEnv;
  /** Whether stderr is to look like a terminal (progress lines rewritten in place); default no, as on a pipe. */
  readonly terminal?: boolean;
}

// One command at a time: each one borrows the process's environment and working directory while it runs.
let previous: Promise<unknown> = Promise.resolve();

/** Makes process.env exactly `env` and returns how to put it back. */
function borrowEnvironment(env: NodeJS.ProcessEnv): () => void {
  const saved = { ...process.env };
  const replaceWith = (next: NodeJS.ProcessEnv) => {
    for (const key of Object.keys(process.env)) if (!(key in next)) delete process.env[key];
    for (const [key, value] of Object.entries(next)) if (value !== undefined) process.env[key] = value;
  };
  replaceWith(env);
  return () => replaceWith(saved);
}

/** What a command printed so far, as it prints it. */
interface Printed {
  stdout: string;
  stderr: string;
}

async function runOnce(args: readonly string[], options: InProcessCliOptions, printed: Printed): Promise<CliResult> {
  const { KINTSUGI_TOKEN: _token, ...inherited } = process.env;
  const giveBack = borrowEnvironment(options.env ?? inherited);
  const cwd = process.cwd();
  if (options.cwd !== undefined) process.chdir(options.cwd);
  try {
    const code = await main([process.execPath, "kintsugi", ...args], {
      out: (text) => (printed.stdout += text),
      err: (text) => (printed.stderr += text),
      terminal: options.terminal === true,
    });
    return { code, stdout: printed.stdout, stderr: printed.stderr };
  } finally {
    process.chdir(cwd);
    giveBack();
  }
}

function enqueue(args: readonly string[], options: InProcessCliOptions, printed: Printed): Promise<CliResult> {
  const run = previous.then(() => runOnce(args, options, printed));
  previous = run.catch(() => undefined);
  return run;
}

/**
 * Runs a `kintsugi` command in this process through the CLI's program object, as the binary would run it on a pipe:
 * the same parsing, output and exit code, without starting a Node process (about 0.1 s a command instead of
 * 1-2 s). For the commands a server answers; the few tests of the binary itself use runCli.
 */
export function runCliInProcess(args: readonly string[], options: InProcessCliOptions = {}): Promise<CliResult> {
  return enqueue(args, options, { stdout: "", stderr: "" });
}

/** A command that runs until stopped (`watch`, `serve`), running in this process; its output read as it comes. */
export interface InProcessCommand {
  /** The exit code once it returned. */
  readonly exited: Promise<number>;
  /** What it printed so far. */
  out(): string;
  err(): string;
  /**
   * Stops it as SIGTERM stops the binary (the command's own SIGTERM handler runs) and gives its exit code. The
   * signal is only emitted to this process's listeners: nothing else listens for it here, and no signal is sent.
   */
  stop(): Promise<number>;
}

/**
 * Starts a command that runs until SIGINT or SIGTERM (`repair-queue watch`, `serve`) in this process, as on a pipe
 * (no terminal). It holds the in-process runner until it returns: no other in-process command runs meanwhile. What
 * only the process does (a real signal, the terminal) is test/cli/binary-smoke.test.ts's and the terminal tests'.
 */
export function startCliInProcess(args: readonly string[], options: InProcessCliOptions = {}): InProcessCommand {
  const printed: Printed = { stdout: "", stderr: "" };
  const exited = enqueue(args, options, printed).then((result) => result.code);
  let done = false;
  void exited.finally(() => (done = true));
  return {
    exited,
    out: () => printed.stdout,
    err: () => printed.stderr,
    async stop() {
      if (!done) process.emit("SIGTERM", "SIGTERM");
      return exited;
    },
  };
}
