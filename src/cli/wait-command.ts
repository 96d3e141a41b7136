import { Command, Option } from "commander";
import { CliError } from "./client.js";
import * as D from "./documents.js";
import { formatGoDuration, parseDuration, parseWholeSeconds } from "./durations.js";
import type * as Op from "./generated/operations.js";
import type { CliIo } from "./repair-queue-commands.js";

/** ckecli's defaults (pkg/ckecli/cmd/repair_queue_wait.go). */
const DEFAULT_TIMEOUT_SECONDS = 30;
const DEFAULT_INTERVAL_SECONDS = 1;
/** The longest wait node's timers keep (2^31 - 1 ms); a longer interval would fire at once. */
const MAX_INTERVAL_MS = 2_147_483_000;

interface WaitOptions {
  readonly timeoutSeconds: number;
  readonly intervalSeconds: number;
  /** kintsugi's earlier spellings, durations in milliseconds once parsed. */
  readonly timeout?: number;
  readonly interval?: number;
}

/** The timeout and interval in milliseconds, whichever spelling gave them, refused as ckecli refuses them. */
function waitTimes(opts: WaitOptions): { timeoutMs: number; intervalMs: number } {
  const timeoutMs = opts.timeout ?? opts.timeoutSeconds * 1000;
  const intervalMs = opts.interval ?? opts.intervalSeconds * 1000;
  const intervalFlag = opts.interval === undefined ? "--interval-seconds" : "--interval";
  if (timeoutMs < 0) throw new CliError("--timeout-seconds must not be negative");
  if (intervalMs <= 0) throw new CliError(`${intervalFlag} must be greater than zero`);
  if (intervalMs > MAX_INTERVAL_MS) throw new CliError(`${intervalFlag} must be at most ${MAX_INTERVAL_MS / 1000} seconds (about 24.8 days)`);
  return { timeoutMs, intervalMs };
}

const sleepUntil = (time: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, time - Date.now())));

/**
 * `kintsugi repair-queue wait`: ckecli's command, with its flags, output and errors. It checks the queue at once
 * and then every interval until no entry at all is left (finished and deleted-but-not-dequeued ones count, as in
 * ckecli), printing `repair queue entries: N` after each check that finds some and `repair queue is empty` when
 * done. A timeout of 0 checks once. `--timeout` and `--interval` (Go durations) are kintsugi's earlier spellings.
 */
export function waitCommand(io: CliIo): Command {
  return new Command("wait")
    .description("wait until the repair queue is empty (as ckecli repair-queue wait)")
    .addOption(
      new Option("--timeout-seconds <SECONDS>", "the number of seconds to wait before giving up; 0 = check once and do not wait")
        .argParser(parseWholeSeconds)
        .default(DEFAULT_TIMEOUT_SECONDS),
    )
    .addOption(
      new Option("--interval-seconds <SECONDS>", "the number of seconds between repair queue checks")
        .argParser(parseWholeSeconds)
        .default(DEFAULT_INTERVAL_SECONDS),
    )
    .addOption(
      new Option("--timeout <DURATION>", "--timeout-seconds as a duration (e.g. 90s, 10m, 1h30m)").argParser(parseDuration).conflicts("timeoutSeconds"),
    )
    .addOption(new Option("--interval <DURATION>", "--interval-seconds as a duration (e.g. 500ms, 2s)").argParser(parseDuration).conflicts("intervalSeconds"))
    .action(async (opts: WaitOptions) => {
      const { timeoutMs, intervalMs } = waitTimes(opts);
      const client = io.client();
      const count = async () => (await client.request<Op.CountEntriesQuery>(D.CountEntries)).searchRepairEntries.length;
      const report = (entries: number) => io.out(entries === 0 ? "repair queue is empty\n" : `repair queue entries: ${entries}\n`);
      const first = await count();
      if (first === 0) return report(0);
      if (timeoutMs === 0) throw new CliError("repair queue is not empty");
      report(first);
      const start = Date.now();
      const deadline = start + timeoutMs;
      for (;;) {
        // The next tick of a ticker started with the wait; a check slower than the interval skips ticks, as Go's does.
        const next = start + (Math.floor((Date.now() - start) / intervalMs) + 1) * intervalMs;
        if (next > deadline) {
          await sleepUntil(deadline);
          throw new CliError(`timed out waiting for repair queue to become empty after ${formatGoDuration(timeoutMs)}`);
        }
        await sleepUntil(next);
        const entries = await count();
        report(entries);
        if (entries === 0) return;
      }
    });
}
