import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { findProgram } from "./find-program.js";

const run = promisify(execFile);

/** The kubectl binary (/usr/bin first, then PATH), or null when there is none: tests that need it are skipped. */
export function findKubectl(): string | null {
  return findProgram("kubectl");
}

/**
 * Runs kubectl with `kubeconfig` (its discovery cache in `cacheDir`, so that nothing outside the test is read or
 * written) and returns its standard output; rejects with its error when it fails.
 */
export async function runKubectl(kubeconfig: string, cacheDir: string, args: readonly string[]): Promise<string> {
  const kubectl = findKubectl();
  if (kubectl === null) throw new Error("kubectl not found");
  // stdin closed: a kubectl that wants to ask something fails instead of waiting.
  const child = run(kubectl, ["--kubeconfig", kubeconfig, "--cache-dir", cacheDir, ...args], { timeout: 30_000 });
  child.child.stdin?.end();
  return (await child).stdout;
}
