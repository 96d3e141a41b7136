import { readTextBounded } from "../support/bounded-read.js";
import { Command, Option } from "commander";
import { escapeControlCharacters as printable } from "../domain/shared/untrusted-text.js";
import { CliError } from "./cli-error.js";
import { ckeJson, toCkeEntry } from "./cke-json.js";
import type { KintsugiClient } from "./client.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import { addToggleCommands } from "./toggle-commands.js";
import { waitCommand } from "./wait-command.js";
import { watchCommand } from "./watch-command.js";

/** Where command output goes and how to reach the server; tests and main supply them. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly client: () => KintsugiClient;
  /** Notes beside the output (stderr), so what goes to `out` stays as documented (e.g. JSON). */
  readonly note?: (text: string) => void;
  /** Whether `note` writes to a terminal (a progress line is rewritten in place there). */
  readonly terminal?: boolean;
}

/**
 * One line on stderr for a failed entry: `kintsugi: entry 3 (10.0.0.3) failed: REASON`, the reason as the server
 * keeps it (a command's output in it already escaped there) and escaped again here: the server's words reach the
 * terminal.
 */
export function failureNote(index: string, address: string, failure: string): string {
  return `kintsugi: entry ${index} (${printable(address)}) failed: ${printable(failure)}\n`;
}

/** A file's text, or a CliError naming it. */
export function readTextFile(path: string): string {
  try {
    return readTextBounded(path);
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
}

/** `kintsugi repair-queue ...`: the operator commands of `ckecli repair-queue`, with the same output. */
export function repairQueueCommand(io: CliIo): Command {
  const cmd = new Command("repair-queue").description("inspect and control the repair queue (as ckecli repair-queue)");

  // ckecli's add prints nothing (repair_queue_add.go), and scripts written for it expect that; --json gives the entry.
  cmd
    .command("add")
    .description("append a repair entry; prints nothing, as ckecli")
    .argument("<OPERATION>")
    .argument("<MACHINE_TYPE>")
    .argument("<ADDRESS>")
    .argument("[SERIAL]")
    .addOption(new Option("--json", "print the new entry (its index among its fields) as ckecli's RepairQueueEntry JSON"))
    .action(async (operation: string, machineType: string, address: string, serial: string | undefined, options: { json?: boolean }) => {
      const r = await io.client().request<Op.AddEntryMutation>(D.AddEntry, { operation, machineType, address, serial: serial ?? null });
      if (options.json) io.out(ckeJson(toCkeEntry(r.addRepairEntry)));
    });

  cmd
    .command("import")
    .description(
      "take over CKE's repair queue: FILE is what ckecli repair-queue list prints; each entry is added in its status and step (this queue disabled first); prints the entries added as JSON",
    )
    .argument("<FILE>")
    .action(async (file: string) => {
      const r = await io.client().request<Op.ImportEntriesMutation>(D.ImportEntries, { entries: readTextFile(file) });
      const { imported, alreadyImported } = r.importRepairEntries;
      if (alreadyImported.length > 0) io.note?.(`kintsugi: CKE entries imported before, left out: ${alreadyImported.join(", ")}\n`);
      io.out(ckeJson(imported.length === 0 ? null : imported.map(toCkeEntry)));
    });

  cmd
    .command("list")
    .description("print every entry as a JSON array, as ckecli does (null when there is none); why each failed entry failed goes to stderr")
    .action(async () => {
      const r = await io.client().request<Op.ListEntriesQuery>(D.ListEntries);
      // ckecli encodes the nil slice it gets for an empty queue: `null`, not `[]`.
      io.out(ckeJson(r.searchRepairEntries.length === 0 ? null : r.searchRepairEntries.map(toCkeEntry)));
      // stdout stays ckecli's JSON for the scripts that read it; the operator reading the terminal also learns why.
      for (const e of r.searchRepairEntries) if (e.failure) io.note?.(failureNote(e.index, e.address, e.failure));
    });

  cmd
    .command("delete")
    .description("request the deletion of an entry")
    .argument("<INDEX>")
    .action(async (index: string) => {
      await io.client().request<Op.DeleteEntryMutation>(D.DeleteEntry, { index });
    });

  cmd
    .command("delete-finished")
    .description("request the deletion of every finished entry; prints their indexes")
    .action(async () => {
      const r = await io.client().request<Op.DeleteFinishedMutation>(D.DeleteFinished);
      io.out(r.deleteFinishedRepairEntries.map((e) => `${e.index}\n`).join(""));
    });

  cmd
    .command("delete-unfinished")
    .description("request the deletion of every unfinished entry; prints their indexes")
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

  cmd
    .command("reset-backoff")
    .description("reset the drain back-off of every entry")
    .action(async () => {
      await io.client().request<Op.ResetBackoffMutation>(D.ResetBackoff);
    });

  cmd.addCommand(waitCommand(io));

  cmd.addCommand(
    watchCommand({
      ...io,
      server: () => io.client().endpoint.replace(/\/graphql$/, ""),
      // A terminal that reports no size (some serial consoles, `script` without one) falls back to $COLUMNS, then 80.
      tty: () => (process.stdout.isTTY ? { columns: () => process.stdout.columns || Number.parseInt(process.env["COLUMNS"] ?? "", 10) || 80 } : null),
    }),
  );

  return cmd;
}
