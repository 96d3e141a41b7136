import { Command, InvalidArgumentError, Option } from "commander";
import { parseAddress } from "../domain/shared/address.js";
import { ckeJson } from "./cke-json.js";
import * as D from "./documents.js";
import { parseDuration } from "./durations.js";
import type * as Op from "./generated/operations.js";
import type { CliIo } from "./repair-queue-commands.js";
import { frequentTable, machineRepairsTable, statsTable } from "./stats-tables.js";

const DAY_MS = 86_400_000;
const GROUPS = { machine_type: "MACHINE_TYPE", operation: "OPERATION", rack: "RACK", step: "STEP" } as const;

/** A time given as RFC 3339, or as a duration before `now` (`7d`, `36h`, `1d12h`, `90m`). */
export function statsTime(text: string, now: number): string {
  if (/^\d{4}-\d\d-\d\dT/.test(text)) {
    if (Number.isNaN(Date.parse(text))) throw new InvalidArgumentError(`invalid time ${JSON.stringify(text)} (RFC 3339, e.g. 2026-11-23T18:00:00Z)`);
    return text;
  }
  const days = /^(\d+)d(.*)$/.exec(text);
  try {
    const ms = days ? Number(days[1]) * DAY_MS + (days[2] === "" ? 0 : parseDuration(days[2]!)) : parseDuration(text);
    return new Date(now - ms).toISOString();
  } catch {
    throw new InvalidArgumentError(`invalid time ${JSON.stringify(text)}: an RFC 3339 time or a duration before now (7d, 36h, 1d12h)`);
  }
}

/** `--group-by machine_type,rack` as the API's dimensions. */
export function groupByOf(text: string): Op.RepairStatsDimension[] {
  return text.split(",").map((word) => {
    const dimension = GROUPS[word.trim() as keyof typeof GROUPS];
    if (!dimension)
      throw new InvalidArgumentError(`unknown group ${JSON.stringify(word)}: one or more of ${Object.keys(GROUPS).join(", ")}, separated by commas`);
    return dimension as Op.RepairStatsDimension;
  });
}

const sinceOption = (fallback: string) =>
  new Option("--since <TIME>", `the start: RFC 3339 or a duration before now (7d, 36h; default ${fallback}); at most 90 days back`).argParser((t) =>
    statsTime(t, Date.now()),
  );

/** `--top N`: a whole number from 1 to 100. */
export function topOf(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 100)
    throw new InvalidArgumentError(`a whole number from 1 to 100, got ${JSON.stringify(text)}`);
  return Number(text);
}
const jsonOption = () => new Option("--json", "print the answer as JSON instead of a table");

/** `kintsugi stats [...]`, `stats machine ADDRESS|SERIAL`, `stats frequent [--top N]`. */
export function statsCommand(io: CliIo): Command {
  // Commander gives an option the subcommands share with `stats` (--json, --since) to `stats` when it comes after
  // the subcommand too, so the subcommands read both.
  const shared = () => cmd.opts<{ since?: string; json?: boolean }>();
  const cmd = new Command("stats")
    .description("repair analytics from the history: outcomes, time to repair, draining and steps by group")
    .addOption(sinceOption("7d"))
    .addOption(new Option("--until <TIME>", "the end (exclusive): RFC 3339 or a duration before now; default now").argParser((t) => statsTime(t, Date.now())))
    .addOption(new Option("--group-by <LIST>", "group by any of machine_type, operation, rack, step (comma-separated)").argParser(groupByOf))
    .addOption(jsonOption())
    .action(async (options: { since?: string; until?: string; groupBy?: Op.RepairStatsDimension[]; json?: boolean }) => {
      const since = options.since ?? statsTime("7d", Date.now());
      const r = await io.client().request<Op.RepairStatsQuery>(D.RepairStats, { since, until: options.until ?? null, groupBy: options.groupBy ?? [] });
      io.out(options.json ? ckeJson(r.repairStats) : statsTable(r.repairStats));
    });

  cmd
    .command("machine")
    .description("every kept repair of one machine, with the time between failures")
    .argument("<ADDRESS|SERIAL>", "an IP address, or a serial looked up in sabakan")
    .addOption(jsonOption())
    .action(async (machine: string, options: { json?: boolean }) => {
      const variables = parseAddress(machine).ok ? { address: machine, serial: null } : { address: null, serial: machine };
      const r = await io.client().request<Op.MachineRepairsQuery>(D.MachineRepairs, variables);
      io.out(options.json || shared().json ? ckeJson(r.machineRepairs) : machineRepairsTable(r.machineRepairs));
    });

  cmd
    .command("frequent")
    .description("the machines repaired most: candidates for retirement")
    .addOption(sinceOption("30d"))
    .addOption(new Option("--top <N>", "how many machines (1-100)").default(10).argParser(topOf))
    .addOption(jsonOption())
    .action(async (options: { since?: string; top: number; json?: boolean }) => {
      const since = options.since ?? shared().since ?? statsTime("30d", Date.now());
      const r = await io.client().request<Op.FrequentlyRepairedQuery>(D.FrequentlyRepaired, { since, top: options.top });
      io.out(options.json || shared().json ? ckeJson(r.frequentlyRepaired) : frequentTable(r.frequentlyRepaired));
    });
  return cmd;
}
