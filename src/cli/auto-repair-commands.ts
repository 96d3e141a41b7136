import { readFileBounded } from "../support/bounded-read.js";
import { Command } from "commander";
import { addLastOption } from "./last-option.js";
import { ckeJson } from "./cke-json.js";
import { printableJsonText } from "../domain/shared/untrusted-text.js";
import { CliError } from "./client.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import { readCkeQueryVariables } from "../domain/sabakan/cke-query-variables.js";
import type { MachineQueryVariables } from "../domain/sabakan/machine-params.js";
import { skippedPhrase } from "../domain/intake/skipped-bound.js";
import type { CliIo } from "./repair-queue-commands.js";
import { addToggleCommands } from "./toggle-commands.js";

/** A variables file: its text as it was read, and the variables CKE would read from it. */
export interface VariablesFile {
  readonly text: string;
  readonly variables: MachineQueryVariables;
}

/**
 * Reads a variables file, a JSON object with `having` and/or `notHaving` (each sabakan's MachineParams), as CKE reads
 * it (see readCkeQueryVariables): a key CKE ignores is named on stderr (through `note`) and ignored. The text is
 * returned as it is, for the server to keep byte for byte; the server checks the values again.
 */
export function readVariablesFile(path: string, note: ((text: string) => void) | undefined): VariablesFile {
  let bytes: Buffer;
  try {
    bytes = readFileBounded(path);
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let text: string;
  try {
    // Not UTF-8 is refused rather than mended, so that what is kept is the file's bytes; a BOM stays (and is no JSON).
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new CliError(`${path}: not UTF-8 text`);
  }
  const read = readCkeQueryVariables(text);
  if (!read.ok) throw new CliError(`${path}: ${read.message}`);
  for (const key of read.ignored) note?.(`kintsugi: warning: ${path}: ${key}: unknown key, ignored as CKE ignores it\n`);
  return { text, variables: read.variables };
}

/** `kintsugi auto-repair ...`: controls sabakan-triggered repair, as `ckecli auto-repair` does. */
export function autoRepairCommand(io: CliIo): Command {
  const cmd = new Command("auto-repair").description("control sabakan-triggered repair (as ckecli auto-repair)");

  addToggleCommands(cmd, io, {
    noun: "sabakan-triggered repair",
    disabledMeans: "sabakan is not queried",
    query: D.AutoRepairEnabled,
    mutation: D.SetAutoRepairEnabled,
    field: "autoRepairEnabled",
  });

  cmd
    .command("set-variables")
    .description('replace the searchMachines variables with FILE\'s JSON {"having": {...}, "notHaving": {...}}; keys CKE ignores are ignored, with a warning')
    .argument("<FILE>")
    .action(async (file: string) => {
      const { text } = readVariablesFile(file, io.note);
      await io.client().request<Op.SetAutoRepairVariablesMutation>(D.SetAutoRepairVariables, { text });
    });

  // ckecli prints the stored bytes as they are, and fails with "not found" while none were set (the defaults apply).
  cmd
    .command("get-variables")
    .description("print the searchMachines variables exactly as set-variables was given them")
    .action(async () => {
      const r = await io.client().request<Op.GetAutoRepairVariablesQuery>(D.GetAutoRepairVariables);
      if (r.autoRepairVariables.text === null || r.autoRepairVariables.text === undefined) throw new CliError("not found");
      io.out(printableJsonText(r.autoRepairVariables.text));
    });

  cmd
    .command("run")
    .description("poll sabakan once now and print the outcome as JSON (exit 1 when the poll failed)")
    .action(async () => {
      const r = await io.client().request<Op.RunAutoRepairMutation>(D.RunAutoRepair);
      io.out(ckeJson(r.runAutoRepair));
      noteCutSkips(io, [r.runAutoRepair]);
      if (r.runAutoRepair.error) throw new CliError(`auto-repair poll failed: ${r.runAutoRepair.error}`);
    });

  addLastOption(cmd.command("outcomes").description("print the outcomes of the latest polls as a JSON array, oldest first"), "1,000").action(
    async (opts: { last: number }) => {
      const r = await io.client().request<Op.AutoRepairOutcomesQuery>(D.AutoRepairOutcomes, { last: opts.last });
      io.out(ckeJson(r.autoRepairOutcomes));
      noteCutSkips(io, r.autoRepairOutcomes);
    },
  );

  return cmd;
}

/** Says on stderr which outcomes list only some of their skipped machines (the JSON's skippedByKind counts them all). */
function noteCutSkips(
  io: CliIo,
  outcomes: ReadonlyArray<{ readonly sequence: string; readonly skipped: readonly unknown[]; readonly skippedTotal: number }>,
): void {
  for (const o of outcomes) {
    if (o.skippedTotal > o.skipped.length) io.note?.(`poll ${o.sequence}: ${skippedPhrase(o.skippedTotal, o.skipped.length)}; skippedByKind counts them all\n`);
  }
}
