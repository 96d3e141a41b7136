import { Command, InvalidArgumentError, Option } from "commander";
import { parseAddress } from "../domain/shared/address.js";
import { escapeControlCharacters } from "../domain/shared/untrusted-text.js";
import { CliError } from "./cli-error.js";
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

// sabakan's serials are letters, digits and a few separators; anything else is left for the server to refuse as an address.
const SERIAL = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The address a machine is held by: an IP address as given, or a serial looked up in sabakan through kintsugi's
 * gateway (the machine's first IPv4 address, the one CKE makes its node address).
 */
async function machineAddress(io: CliIo, target: string): Promise<string> {
  if (parseAddress(target).ok || !SERIAL.test(target)) return target;
  const r = await io.client().request<Op.MachineAddressBySerialQuery>(D.MachineAddressBySerial, { serial: target });
  const address = r.machine.spec.ipv4[0];
  if (!address) throw new CliError(`machine ${target}: sabakan lists no IPv4 address for it, so it has no address to hold`);
  return address;
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

/** `kintsugi machine hold ADDRESS|SERIAL --reason TEXT [--until TIME]`, `machine release ADDRESS|SERIAL`, `machine holds [--json]`. */
export function machineCommand(io: CliIo): Command {
  const cmd = new Command("machine").description("hold machines back from repair (a per-machine veto) and release them");

  cmd
    .command("hold")
    .description("hold a machine (by address or serial): it is not enqueued and its queued entries do not start; prints the hold as JSON")
    .argument("<ADDRESS|SERIAL>")
    .addOption(new Option("--reason <TEXT>", "required: why the machine is held (shown wherever the hold is)"))
    .addOption(
      new Option("--until <TIME>", "when the hold ends by itself: RFC 3339 or a duration from now (2h, 30m); default: until released").argParser((text) =>
        holdEnd(text, Date.now()),
      ),
    )
    .action(async (target: string, options: { reason?: string; until?: string }) => {
      if (options.reason === undefined)
        throw new CliError(
          "machine hold: --reason TEXT is required: say why the machine is held (it is shown wherever the hold is), e.g. --reason 'disk swap, ticket 4711'",
        );
      const address = await machineAddress(io, target);
      const r = await io.client().request<Op.HoldMachineMutation>(D.HoldMachine, { address, reason: options.reason, until: options.until ?? null });
      io.out(ckeJson(r.holdMachine));
    });

  cmd
    .command("release")
    .description("release a machine's hold set through kintsugi (by address or serial); prints the released hold as JSON")
    .argument("<ADDRESS|SERIAL>")
    .action(async (target: string) => {
      const r = await io.client().request<Op.ReleaseMachineMutation>(D.ReleaseMachine, { address: await machineAddress(io, target) });
      io.out(ckeJson(r.releaseMachine));
    });

  cmd
    .command("holds")
    .description("list the holds in force (stored ones, and on the leader the Node annotations') as a table")
    .addOption(new Option("--json", "print them as a JSON array instead"))
    .action(async (options: { json?: boolean }) => {
      const r = await io.client().request<Op.ListMachineHoldsQuery>(D.ListMachineHolds);
      io.out(options.json ? ckeJson(r.machineHolds) : holdsTable(r.machineHolds));
    });
  return cmd;
}
