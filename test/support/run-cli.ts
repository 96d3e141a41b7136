import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The real `kintsugi` executable, as `npx kintsugi` runs it (from the built dist/). */
export const KINTSUGI_BIN = fileURLToPath(new URL("../../bin/kintsugi.js", import.meta.url));

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The environment less KINTSUGI_TOKEN: a developer's own token must not reach the test servers. */
function withoutToken(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { KINTSUGI_TOKEN: _token, ...rest } = env;
  return rest;
}

/**
 * Runs the real binary as a child process. Asynchronous on purpose: the server under test runs in this process,
 * and a synchronous child would block the event loop it needs to answer.
 */
export function runCli(args: readonly string[], options: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [KINTSUGI_BIN, ...args],
      { cwd: options.cwd, timeout: options.timeoutMs ?? 60_000, env: options.env ?? withoutToken(process.env) },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
