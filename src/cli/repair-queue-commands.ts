import { Command, InvalidArgumentError } from "commander";
import { ckeJson, toCkeEntry } from "./cke-json.js";
import { CliError, type KintsugiClient } from "./client.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import { addToggleCommands } from "./toggle-commands.js";
import { watchCommand } from "./watch-command.js";

/** Where command output goes and how to reach the server; tests and main supply them. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly client: () => KintsugiClient;
}

/** Reads a duration as ckecli does ("90s", "10m", "1h30m") or a plain number of seconds. */
export function parseDuration(text: string): number {
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const re = /(\d+(?:\.\d+)?)(h|ms|m|s)/gy;
  let ms = 0;
  let matched = 0;
  for (const m of text.matchAll(re)) {
    ms += Number(m[1]) * { h: 3_600_000, m: 60_000, s: 1000, ms: 1 }[m[2] as "h" | "m" | "s" | "ms"];
    matched += m[0].length;
  }
  if (text === "" || matched !== text.length) throw new InvalidArgumentError(`invalid duration ${JSON.stringify(text)} (examples: 30s, 10m, 1h)`);
  return ms;
}

/** `kintsugi repair-queue ...`: the operator commands of `ckecli repair-queue`, with the same output. */
export function repairQueueCommand(io: CliIo): Command {
  const cmd = new Command("repair-queue").description("inspect and control the repair queue (as ckecli repair-queue)");

  cmd.command("add").description("append a repair entry; prints its index")
    .argument("<OPERATION>").argument("<MACHINE_TYPE>").argument("<ADDRESS>").argument("[SERIAL]")
    .action(async (operation: string, machineType: string, address: string, serial: string | undefined) => {
      const r = await io.client().request<Op.AddEntryMutation>(D.AddEntry, { operation, machineType, address, serial: serial ?? null });
      io.out(`${r.addRepairEntry.index}\n`);
    });

  cmd.command("list").description("print every entry as a JSON array, as ckecli does")
    .action(async () => {
      const r = await io.client().request<Op.ListEntriesQuery>(D.ListEntries);
      io.out(ckeJson(r.searchRepairEntries.map(toCkeEntry)));
    });

  cmd.command("delete").description("request the deletion of an entry").argument("<INDEX>")
    .action(async (index: string) => {
      await io.client().request<Op.DeleteEntryMutation>(D.DeleteEntry, { index });
    });

  cmd.command("delete-finished").description("request the deletion of every finished entry; prints their indexes")
    .action(async () => {
      const r = await io.client().request<Op.DeleteFinishedMutation>(D.DeleteFinished);
      io.out(r.deleteFinishedRepairEntries.map((e) => `${e.index}\n`).join(""));
    });

  cmd.command("delete-unfinished").description("request the deletion of every unfinished entry; prints their indexes")
    .action(async () => {
      const r = await io.client().request<Op.DeleteUnfinishedMutation>(D.DeleteUnfinished);
      io.out(r.deleteUnfinishedRepairEntries.map((e) => `${e.index}\n`).join(""));
    });

  addToggleCommands(cmd, io, {
    noun: "the processing of the repair queue",
    disabledMeans: "no drain starts and no repair command runs; health checks and dequeues go on",
    query: D.QueueEnabled,
    mutation: D.SetQueueEnabled,
    field: "repairQueueEnabled",
  });

  cmd.command("reset-backoff").description("reset the drain back-off of every entry")
    .action(async () => {
      await io.client().request<Op.ResetBackoffMutation>(D.ResetBackoff);
    });

  cmd.command("wait").description("wait until the queue holds no entries at all")
    .option("--timeout <DURATION>", "give up after this long (e.g. 30s, 10m)", parseDuration, 30 * 60_000)
    .option("--interval <DURATION>", "poll this often", parseDuration, 2000)
    .action(async (opts: { timeout: number; interval: number }) => {
      const deadline = Date.now() + opts.timeout;
      for (;;) {
        const r = await io.client().request<Op.CountEntriesQuery>(D.CountEntries);
        if (r.searchRepairEntries.length === 0) return;
        if (Date.now() >= deadline) {
          throw new CliError(`timed out: ${r.searchRepairEntries.length} entries still in the repair queue`);
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(opts.interval, Math.max(0, deadline - Date.now()))));
      }
    });

  cmd.addCommand(
    watchCommand({
      ...io,
      server: () => io.client().endpoint.replace(/\/graphql$/, ""),
      tty: () => (process.stdout.isTTY ? { columns: process.stdout.columns || 120 } : null),
    }),
  );

  return cmd;
}
