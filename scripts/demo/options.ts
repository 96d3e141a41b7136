import type { Level } from "pino";
import { MAX_SCALE, MIN_SCALE } from "./timings.js";

/** The demo's command line, checked. */
export interface DemoOptions {
  readonly port: number;
  /** Every interval of the scenario times this (see timings.ts). */
  readonly scale: number;
  /** Stop after this many seconds of wall-clock time; null = run until Ctrl-C. */
  readonly durationSeconds: number | null;
  /** kintsugi's own log level (its log goes to stderr). */
  readonly logLevel: Level;
}

export const DEMO_USAGE =
  "usage: npm run demo -- [--port N] [--scale X | --fast] [--duration SECONDS] [--log-level fatal|error|warn|info|debug|trace]\n" +
  `  --port N        where kintsugi listens on 127.0.0.1 (default 10180; 0 = any free port)\n` +
  `  --scale X       every interval of the scenario times X, from ${MIN_SCALE} to ${MAX_SCALE} (default 1)\n` +
  "  --fast          the same as --scale 0.2\n" +
  "  --duration S    stop after S seconds (wall clock)\n" +
  "  --log-level L   kintsugi's own log, on stderr (default warn)";

const LEVELS: readonly Level[] = ["fatal", "error", "warn", "info", "debug", "trace"];

/** The longest `--duration` a timer holds (2^31 - 1 ms): a longer one would fire at once and stop the demo. */
export const MAX_DURATION_SECONDS = 2_147_483;

function number(name: string, text: string, valid: (n: number) => boolean, what: string): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || !valid(n)) throw new Error(`${name}: must be ${what}, got ${JSON.stringify(text)}`);
  return n;
}

/** Reads the demo's arguments; a bad one is an error naming the option and what it must be. */
export function demoOptions(args: readonly string[]): DemoOptions {
  let port = 10180;
  let scale = 1;
  let durationSeconds: number | null = null;
  let logLevel: Level = "warn";
  for (let i = 0; i < args.length; i++) {
    const name = args[i] as string;
    if (name === "--fast") {
      scale = 0.2;
      continue;
    }
    const value = args[i + 1];
    if (!["--port", "--scale", "--duration", "--log-level"].includes(name)) throw new Error(`unknown option ${JSON.stringify(name)}`);
    if (value === undefined) throw new Error(`${name}: needs a value`);
    i++;
    if (name === "--port") port = number(name, value, (n) => Number.isInteger(n) && n >= 0 && n <= 65535, "a port number from 0 to 65535");
    else if (name === "--scale") scale = number(name, value, (n) => n >= MIN_SCALE && n <= MAX_SCALE, `a number from ${MIN_SCALE} to ${MAX_SCALE}`);
    else if (name === "--duration")
      durationSeconds = number(name, value, (n) => n > 0 && n <= MAX_DURATION_SECONDS, `a number of seconds > 0 and at most ${MAX_DURATION_SECONDS} (24 days)`);
    else if (LEVELS.includes(value as Level)) logLevel = value as Level;
    else throw new Error(`--log-level: must be one of ${LEVELS.join(", ")}, got ${JSON.stringify(value)}`);
  }
  return { port, scale, durationSeconds, logLevel };
}
