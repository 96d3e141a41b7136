import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { typescriptArgs } from "./typescript-child.js";
import { until } from "./until.js";

const DEMO = fileURLToPath(new URL("../../scripts/demo.ts", import.meta.url));

/** One line of the demo's story: `12:34 [chaos] r0m4 (10.69.0.4) broke: UNHEALTHY`, its clock in seconds. */
export interface StoryLine {
  readonly at: number;
  readonly teller: string;
  readonly text: string;
}

const STORY_LINE = /^(?:(\d+):)?(\d\d):(\d\d) \[(\w+)\] (.*)$/;

/** The story lines of the demo's stdout (the banner and other lines left out), in order. */
export function storyLines(stdout: string): StoryLine[] {
  return stdout.split("\n").flatMap((line) => {
    const m = STORY_LINE.exec(line);
    if (!m) return [];
    const at = Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]);
    return [{ at, teller: m[4] as string, text: m[5] as string }];
  });
}

/** `npm run demo` as a child process, its stdout (the story) and stderr (kintsugi's log) kept apart. */
export interface DemoProcess {
  stdout(): string;
  stderr(): string;
  /** kintsugi's base URL, from the banner. */
  url(): Promise<string>;
  /** Waits until `check` holds of the stdout so far (the deadline only bounds a broken test). */
  untilStdout(what: string, check: (stdout: string) => boolean, timeoutMs?: number): Promise<void>;
  /** The exit code, once the demo ends by itself. */
  exited(): Promise<number | null>;
  /** SIGTERM, and the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL, for a `finally`. */
  kill(): void;
}

/** Starts `node --import tsx scripts/demo.ts ARGS` (or its transpiled .js: test/support/typescript-child.ts), with `env` over this process's environment. */
export function startDemo(args: readonly string[], env: NodeJS.ProcessEnv = {}): DemoProcess {
  const child = spawn(process.execPath, [...typescriptArgs(DEMO), ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const untilStdout = async (what: string, check: (out: string) => boolean, timeoutMs = 90_000) => {
    try {
      await until(what, () => check(stdout), Boolean, timeoutMs);
    } catch {
      throw new Error(`timed out waiting until ${what}; stdout ends with:\n${stdout.slice(-3000)}\nstderr ends with:\n${stderr.slice(-2000)}`);
    }
  };
  return {
    stdout: () => stdout,
    stderr: () => stderr,
    async url() {
      const pattern = /GraphiQL: +(http:\/\/127\.0\.0\.1:\d+)\//;
      await untilStdout("the demo prints the GraphiQL URL", (out) => pattern.test(out));
      return pattern.exec(stdout)?.[1] as string;
    },
    untilStdout,
    exited: () => exited,
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
    kill: () => void child.kill("SIGKILL"),
  };
}
