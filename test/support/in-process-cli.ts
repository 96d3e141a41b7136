import { main } from "../../src/cli/main.js";
import type { CliResult } from "./run-cli.js";

export interface InProcessCliOptions {
  /** The working directory the command runs in (relative paths in its arguments are read from there). */
  readonly cwd?: string;
  /** The whole environment the command sees, as runCli's `env`; without it, this process's less KINTSUGI_TOKEN. */
  readonly env?: NodeJS.ProcessEnv;
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

async function runOnce(args: readonly string[], options: InProcessCliOptions): Promise<CliResult> {
  const { KINTSUGI_TOKEN: _token, ...inherited } = process.env;
  const giveBack = borrowEnvironment(options.env ?? inherited);
  const cwd = process.cwd();
  if (options.cwd !== undefined) process.chdir(options.cwd);
  let stdout = "";
  let stderr = "";
  try {
    const code = await main([process.execPath, "kintsugi", ...args], { out: (text) => (stdout += text), err: (text) => (stderr += text) });
    return { code, stdout, stderr };
  } finally {
    process.chdir(cwd);
    giveBack();
  }
}

/**
 * Runs a `kintsugi` command in this process through the CLI's program object, as the binary would run it on a pipe:
 * the same parsing, output and exit code, without starting a Node process (about 0.1 s a command instead of
 * 1-2 s). For the commands a server answers; the few tests of the binary itself use runCli.
 */
export function runCliInProcess(args: readonly string[], options: InProcessCliOptions = {}): Promise<CliResult> {
  const run = previous.then(() => runOnce(args, options));
  previous = run.catch(() => undefined);
  return run;
}
