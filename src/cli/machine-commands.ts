import { Command, InvalidArgumentError, Option } from "commander";
import { escapeControlCharacters } from "../domain/untrusted-text.js";
import { ckeJson } from "./cke-json.js";
import * as D from "./documents.js";
import { parseDuration } from "./durations.js";
import type * as Op from "./generated/operations.js";
import type { CliIo } from "./repair-queue-commands.js";

/**
 * When a hold given as `--until TIME` ends: an RFC 3339 time as written, or a duration (`2h`, `90m`, `1h30m`) from
 * `now`. The server refuses a time that is not in the future.
 */
export function holdEnd(text: string, now: number): string {
  if (/^\d{4}-\d\d-\d\dT/.test(text)) {
    if (Number.isNaN(Date.parse(text))) throw new InvalidArgumentError(`invalid time ${JSON.stringify(text)} (RFC 3339, e.g. 2026-11-23T18:00:00Z)`);
    return text;
  }
  try {
    return new Date(now + parseDuration(text)).toISOString();
  } catch {
    throw new InvalidArgumentError(`invalid time ${JSON.stringify(text)}: an RFC 3339 time (2026-11-23T18:00:00Z) or a duration from now (30m, 2h, 1h30m)`);
  }
}

const COLUMNS = ["ADDRESS", "SOURCE", "SET BY", "SET AT", "UNTIL", "REASON"] as const;

/** The holds as a table, one line each; every cell is text from the server (reasons, token names): escaped. */
export function holdsTable(holds: readonly Op.MachineHoldFieldsFragment[]): string {
  if (holds.length === 0) return "no machine is held\n";
  const rows = holds.map((h) => [h.address, h.source.toLowerCase(), h.setBy, h.setAt ?? "-", h.until ?? "-", h.reason].map(escapeControlCharacters));
  const widths = COLUMNS.map((title, i) => Math.max(title.length, ...rows.map((r) => (r[i] as string).length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] as number))).join("  ");
  return [line(COLUMNS), ...rows.map(line)].join("\n") + "\n";
}

/** `kintsugi machine hold ADDRESS --reason TEXT [--until TIME]`, `machine release ADDRESS`, `machine holds [--json]`. */
export function machineCommand(io: CliIo): Command {
  const cmd = new Command("machine").description("hold machines back from repair (a per-machine veto) and release them");

  cmd.command("hold").description("hold a machine: it is not enqueued and its queued entries do not start; prints the hold as JSON")
    .argument("<ADDRESS>")
    .requiredOption("--reason <TEXT>", "why the machine is held (shown wherever the hold is)")
    .addOption(
      new Option("--until <TIME>", "when the hold ends by itself: RFC 3339 or a duration from now (2h, 30m); default: until released").argParser((text) => holdEnd(text, Date.now())),
    )
    .action(async (address: string, options: { reason: string; until?: string }) => {
      const r = await io.client().request<Op.HoldMachineMutation>(D.HoldMachine, { address, reason: options.reason, until: options.until ?? null });
      io.out(ckeJson(r.holdMachine));
    });

  cmd.command("release").description("release a machine's hold set through kintsugi; prints the released hold as JSON").argument("<ADDRESS>")
    .action(async (address: string) => {
      const r = await io.client().request<Op.ReleaseMachineMutation>(D.ReleaseMachine, { address });
      io.out(ckeJson(r.releaseMachine));
    });

  cmd.command("holds").description("list the holds in force (stored ones, and on the leader the Node annotations') as a table")
    .addOption(new Option("--json", "print them as a JSON array instead"))
    .action(async (options: { json?: boolean }) => {
      const r = await io.client().request<Op.ListMachineHoldsQuery>(D.ListMachineHolds);
      io.out(options.json ? ckeJson(r.machineHolds) : holdsTable(r.machineHolds));
    });
  return cmd;
}
