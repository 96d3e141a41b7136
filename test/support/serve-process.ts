import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { KINTSUGI_BIN, nodeOptionsOf } from "./run-cli.js";

export interface ServeProcess {
  readonly child: ChildProcess;
  /** The server's base URL, read from its "kintsugi started" log line. */
  readonly url: Promise<string>;
  readonly exited: Promise<number | null>;
  /**
   * The exit code once the process ends, or "still running" (and the process killed) after `withinMs`: a test that
   * expects a refusal fails instead of hanging when the server starts after all.
   */
  exitCode(withinMs?: number): Promise<number | null | "still running">;
  stderr(): string;
  /** The log records written to stdout so far (pino's JSON lines, parsed; other lines left out). */
  logRecords(): Array<{ msg: string; [field: string]: unknown }>;
}

/**
 * Starts the real `kintsugi serve ARGS` as a child process in `cwd` (with `env`, else this process's environment;
 * as user `as`, else as this process's user; the checkout's `bin/kintsugi.js` unless `bin` names another install;
 * through `launcher`, an argv prefix that execs the rest, e.g. `ip netns exec NAME`, so the child is still node).
 */
export function serveProcess(
  args: readonly string[],
  cwd: string,
  env?: NodeJS.ProcessEnv,
  as?: { uid: number; gid: number },
  bin = KINTSUGI_BIN,
  launcher: readonly string[] = [],
): ServeProcess {
  const [program = process.execPath, ...prefix] = [...launcher, process.execPath];
  const child = spawn(program, [...prefix, ...nodeOptionsOf(bin), bin, "serve", ...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"], ...as });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const records: Array<{ msg: string; [field: string]: unknown }> = [];
  const url = new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      try {
        const record = JSON.parse(line) as { msg: string; url?: string };
        records.push(record);
        if (record.msg === "kintsugi started" && record.url) resolve(record.url);
      } catch {
        // not a log line
      }
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  url.catch(() => undefined);
  const exitCode = async (withinMs = 30_000): Promise<number | null | "still running"> => {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"still running">((resolve) => (timer = setTimeout(() => resolve("still running"), withinMs)));
    const result = await Promise.race([exited, deadline]);
    clearTimeout(timer);
    if (result === "still running") {
      child.kill("SIGKILL");
      await exited;
    }
    return result;
  };
  return { child, url, exited, exitCode, stderr: () => stderr, logRecords: () => records };
}

/** POSTs a GraphQL document to the server at `url` (a serve process's) and returns its data; fails with its errors. */
export async function graphqlData<T>(url: string, query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await fetch(`${url}/graphql`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ query, variables }) });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (!body.data) throw new Error(JSON.stringify(body.errors));
  return body.data;
}
