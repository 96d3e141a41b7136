import { Command, InvalidArgumentError, Option } from "commander";
import type { RepairEntryFilter } from "../alerts/alert-bridge.js";
import { parseAddress } from "../domain/shared/address.js";
import { ALERT_FORMATS, FORMATTERS, type AlertFormat } from "../domain/alerts/alert-formats.js";
import { DEFAULT_FAILURE_THRESHOLD } from "../domain/alerts/auto-repair-alert-messages.js";
import { CliError, DEFAULT_SERVER } from "./client.js";
import { readClientTls, type ClientTlsFiles } from "./client-tls.js";

const FILTER_KEYS = ["statuses", "addresses", "machineTypes", "operations"];
const STATUSES = ["QUEUED", "PROCESSING", "SUCCEEDED", "FAILED"];
/** How long shutdown waits for queued alerts to be delivered. */
const DRAIN_MS = 10_000;
/** How long the first of several like alerts waits for the others, by default. */
export const DEFAULT_GROUP_WINDOW_SECONDS = 5;
const MAX_GROUP_WINDOW_SECONDS = 3600;

/** Reads `--having`: a RepairEntryParams JSON object, statuses upper-case as in the API. */
export function parseHaving(text: string): RepairEntryFilter {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new InvalidArgumentError(`not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new InvalidArgumentError(`must be a JSON object with any of ${FILTER_KEYS.join(", ")}`);
  }
  for (const [key, list] of Object.entries(value)) {
    if (!FILTER_KEYS.includes(key)) throw new InvalidArgumentError(`unknown key ${JSON.stringify(key)}; expected ${FILTER_KEYS.join(", ")}`);
    if (list === null) continue;
    if (!Array.isArray(list) || !list.every((v): v is string => typeof v === "string")) {
      throw new InvalidArgumentError(`${JSON.stringify(key)} must be an array of strings`);
    }
    const bad = list.find((v) => (key === "statuses" ? !STATUSES.includes(v) : key === "addresses" && !parseAddress(v).ok));
    if (bad !== undefined) {
      const expected = key === "statuses" ? `; expected ${STATUSES.join(", ")} (upper-case)` : "";
      throw new InvalidArgumentError(`${JSON.stringify(key)}: invalid value ${JSON.stringify(bad)}${expected}`);
    }
  }
  return value as RepairEntryFilter;
}

function parseWebhook(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError("not a URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new InvalidArgumentError("must be an http:// or https:// URL");
  return text;
}

function parseThreshold(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError("must be a whole number >= 1");
  return n;
}

function parseWindow(text: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || !Number.isFinite(n) || n > MAX_GROUP_WINDOW_SECONDS) {
    throw new InvalidArgumentError(`must be a number of seconds from 0 (no grouping) to ${MAX_GROUP_WINDOW_SECONDS}`);
  }
  return n;
}

interface AlertsOptions {
  readonly webhook: string;
  readonly format: AlertFormat;
  readonly having?: RepairEntryFilter;
  readonly failureThreshold: number;
  readonly groupWindowSeconds: number;
}

/**
 * `kintsugi alerts --webhook URL`: posts one chat message per meaningful repair event and poll problem (like
 * events within `--group-window-seconds` as one), until SIGINT or SIGTERM; then it stops following, posts the
 * groups waiting and gives queued messages a few seconds to go out. Talks to the
 * program-level `--server` (with `--token`, `--ca`, `--cert`, `--key`).
 */
export function alertsCommand(): Command {
  const cmd = new Command("alerts")
    .description(
      "post chat messages for repairs started, drains backed off, repairs succeeded or failed, machines auto-repair defers, and auto-repair problems",
    )
    .requiredOption("--webhook <URL>", "the incoming webhook to POST to", parseWebhook)
    .addOption(new Option("--format <FORMAT>", "the webhook's body format").choices(ALERT_FORMATS).default("slack"))
    .option(
      "--having <JSON>",
      'alert only on entries matching this RepairEntryParams (auto-repair alerts are not filtered), e.g. \'{"machineTypes":["qemu"],"statuses":["PROCESSING"]}\'',
      parseHaving,
    )
    .addOption(
      new Option(
        "--group-window-seconds <N>",
        "post like alerts (repairs started, succeeded, failed, ...) that come within N seconds of the first as one message; 0 = one message each",
      )
        .argParser(parseWindow)
        .default(DEFAULT_GROUP_WINDOW_SECONDS),
    )
    .addOption(
      new Option("--failure-threshold <N>", "alert after this many failed sabakan polls in a row")
        .argParser(parseThreshold)
        .default(DEFAULT_FAILURE_THRESHOLD)
        .hideHelp(),
    )
    .action(async (opts: AlertsOptions) => {
      const {
        server = DEFAULT_SERVER,
        token = null,
        ...files
      } = (cmd.parent?.opts() as ({ server?: string; token?: string } & ClientTlsFiles) | undefined) ?? {};
      const tls = readClientTls(files);
      // The bridge (graphql-ws, ws) loads when the command runs, not with every command's modules.
      const [{ startAlertBridge }, { AlertGrouper }, { WebhookPoster }] = await Promise.all([
        import("../alerts/alert-bridge.js"),
        import("../alerts/alert-grouper.js"),
        import("../alerts/webhook-poster.js"),
      ]);
      const log = (line: string) => void process.stderr.write(`kintsugi alerts: ${line}\n`);
      const poster = new WebhookPoster({ url: opts.webhook, format: FORMATTERS[opts.format], log });
      // The path of a chat webhook is its secret: log where it goes, not the URL.
      log(`following ${server}; posting ${opts.format} messages to ${new URL(opts.webhook).origin}`);
      const grouper = new AlertGrouper({ windowMs: opts.groupWindowSeconds * 1000, post: (alert) => poster.post(alert) });
      const bridge = startAlertBridge({
        server,
        token,
        tls,
        having: opts.having ?? null,
        post: (alert) => grouper.add(alert),
        log,
        failureThreshold: opts.failureThreshold,
      });
      let stop: () => void = () => undefined;
      const signalled = new Promise<void>((resolve) => (stop = resolve));
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
      let failure: Error | null = null;
      try {
        await Promise.race([signalled, bridge.done]);
      } catch (err) {
        failure = err as Error;
      } finally {
        process.off("SIGINT", stop);
        process.off("SIGTERM", stop);
        await bridge.close();
        grouper.close();
        if (poster.pending > 0) log(`delivering ${poster.pending} queued alert(s) before stopping (at most ${DRAIN_MS / 1000}s)`);
        const left = await poster.drain(DRAIN_MS);
        if (left > 0) log(`${left} alert${left === 1 ? "" : "s"} not delivered`);
      }
      if (failure) throw new CliError(failure.message);
      log("stopped");
    });
  return cmd;
}
