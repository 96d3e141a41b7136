import { spawn } from "node:child_process";
import { existsSync } from "node:fs";

/** Debian's promtool (package prometheus; `.ci/run` installs it), or where KINTSUGI_TEST_PROMTOOL says. */
export const PROMTOOL = process.env["KINTSUGI_TEST_PROMTOOL"] ?? "/usr/bin/promtool";

/** Why the promtool tests are skipped, or false when promtool is there. */
export const PROMTOOL_SKIP: string | false = existsSync(PROMTOOL) ? false : `promtool not found at ${PROMTOOL} (install Debian's prometheus)`;

export interface PromtoolResult {
  readonly code: number | null;
  readonly output: string;
}

/** Runs promtool with `args` (an argv array, no shell) in `cwd`, `stdin` written to it; its stdout and stderr together. */
export function runPromtool(args: readonly string[], options: { cwd?: string; stdin?: string } = {}): Promise<PromtoolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, args, { cwd: options.cwd, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
    child.stdin.end(options.stdin ?? "");
  });
}
