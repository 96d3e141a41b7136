import { readFileSync } from "node:fs";
import { Command } from "commander";
import { addLastOption } from "./last-option.js";
import { ckeJson, withoutNulls } from "./cke-json.js";
import { CliError } from "./client.js";
import * as D from "./documents.js";
import type * as Op from "./generated/operations.js";
import { skippedPhrase } from "../domain/skipped-bound.js";
import type { CliIo } from "./repair-queue-commands.js";
import { addToggleCommands } from "./toggle-commands.js";

/**
 * Reads a variables file: a JSON object with `having` and/or `notHaving`, each a sabakan MachineParams. The server
 * checks the MachineParams fields themselves and names any unknown or invalid one.
 */
export function readVariablesFile(path: string): { having: unknown; notHaving: unknown } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${(err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${path}: not valid JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new CliError(`${path}: must be a JSON object with "having" and/or "notHaving"`);
  }
  const unknown = Object.keys(value).filter((k) => k !== "having" && k !== "notHaving");
  if (unknown.length > 0) {
    throw new CliError(`${path}: unknown key ${JSON.stringify(unknown[0])}; expected "having" and/or "notHaving"`);
  }
  const { having = null, notHaving = null } = value as { having?: unknown; notHaving?: unknown };
  return { having, notHaving };
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

  cmd.command("set-variables").description('replace the searchMachines variables with FILE\'s JSON {"having": {...}, "notHaving": {...}}')
    .argument("<FILE>")
    .action(async (file: string) => {
      await io.client().request<Op.SetAutoRepairVariablesMutation>(D.SetAutoRepairVariables, readVariablesFile(file));
    });

  cmd.command("get-variables").description("print the searchMachines variables as JSON")
    .action(async () => {
      const r = await io.client().request<Op.GetAutoRepairVariablesQuery>(D.GetAutoRepairVariables);
      io.out(ckeJson(withoutNulls(r.autoRepairVariables)));
    });

  cmd.command("run").description("poll sabakan once now and print the outcome as JSON (exit 1 when the poll failed)")
    .action(async () => {
      const r = await io.client().request<Op.RunAutoRepairMutation>(D.RunAutoRepair);
      io.out(ckeJson(r.runAutoRepair));
      noteCutSkips(io, [r.runAutoRepair]);
      if (r.runAutoRepair.error) throw new CliError(`auto-repair poll failed: ${r.runAutoRepair.error}`);
    });

  addLastOption(cmd.command("outcomes").description("print the outcomes of the latest polls as a JSON array, oldest first"), "1,000")
    .action(async (opts: { last: number }) => {
      const r = await io.client().request<Op.AutoRepairOutcomesQuery>(D.AutoRepairOutcomes, { last: opts.last });
      io.out(ckeJson(r.autoRepairOutcomes));
      noteCutSkips(io, r.autoRepairOutcomes);
    });

  return cmd;
}

/** Says on stderr which outcomes list only some of their skipped machines (the JSON's skippedByKind counts them all). */
function noteCutSkips(io: CliIo, outcomes: ReadonlyArray<{ readonly sequence: string; readonly skipped: readonly unknown[]; readonly skippedTotal: number }>): void {
  for (const o of outcomes) {
    if (o.skippedTotal > o.skipped.length) io.note?.(`poll ${o.sequence}: ${skippedPhrase(o.skippedTotal, o.skipped.length)}; skippedByKind counts them all\n`);
  }
}
