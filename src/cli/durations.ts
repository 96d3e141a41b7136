import { InvalidArgumentError } from "commander";

const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 } as const;

/** Reads a duration as Go does ("90s", "10m", "1h30m", "500ms") or a plain number of seconds; returns milliseconds. */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s)/gy;
  let ms = 0;
  let matched = 0;
  for (const m of text.matchAll(re)) {
    ms += Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS];
    matched += m[0].length;
  }
  if (text === "" || matched !== text.length) throw new InvalidArgumentError(`invalid duration ${JSON.stringify(text)} (examples: 30s, 10m, 1h)`);
  if (!Number.isSafeInteger(Math.round(ms))) throw new InvalidArgumentError(`duration ${JSON.stringify(text)} is too long`);
  return Math.round(ms);
}

/**
 * Reads a whole number of seconds, as ckecli's Int64 flags do (a sign allowed, so that ckecli's own range messages
 * can name a negative value); refuses anything else, and numbers too large to count in milliseconds.
 */
export function parseWholeSeconds(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new InvalidArgumentError("must be a whole number of seconds");
  const seconds = Number(text);
  if (!Number.isSafeInteger(seconds * 1000)) throw new InvalidArgumentError("too large");
  return seconds === 0 ? 0 : seconds;
}

function trimFraction(value: number): string {
  return value.toFixed(3).replace(/\.?0+$/, "");
}

/**
 * A duration in milliseconds as Go's time.Duration prints it ("30s", "1m30s", "1h0m0s", "1.5s", "500ms"), so
 * messages that carry one read as ckecli's.
 */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / UNIT_MS.h);
  const minutes = Math.floor((ms % UNIT_MS.h) / UNIT_MS.m);
  const seconds = trimFraction((ms % UNIT_MS.m) / 1000);
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}
