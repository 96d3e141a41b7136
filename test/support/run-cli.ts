import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** The real `kintsugi` executable, as `npx kintsugi` runs it (from the built dist/). */
export const KINTSUGI_BIN = fileURLToPath(new URL("../../bin/kintsugi.js", import.meta.url));

/**
 * The node options the executable's `#!/usr/bin/env -S node ...` line gives it: a test that spawns `node
 * KINTSUGI_BIN` itself passes them, so the process runs as an installed `kintsugi` runs.
 */
export function nodeOptionsOf(bin: string): string[] {
  const first = readFileSync(bin, "utf8").split("\n", 1)[0] ?? "";
  const shebang = /^#!\/usr\/bin\/env(?: -S)? node((?: --[\w-]+(?:=\S+)?)*)$/.exec(first);
  if (!shebang) throw new Error(`${bin}: its first line is not a "#!/usr/bin/env -S node [options]" line: ${first}`);
  return (shebang[1] ?? "").split(" ").filter((o) => o !== "");
}

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
