import { Command, InvalidArgumentError, Option } from "commander";
import { parseMaxUnhealthy, parseUnhealthyRange } from "../domain/health/health-check-config.js";
import { escapeControlCharacters } from "../domain/shared/untrusted-text.js";
import { ckeJson } from "./cke-json.js";
import * as D from "./documents.js";
import { parseDuration } from "./durations.js";
import type * as Op from "./generated/operations.js";
import type { CliIo } from "./repair-queue-commands.js";

/** The constraints a replay may try, by their CKE names (the intake's three). */
const REPLAYABLE = {
  "maximum-repair-queue-entries": "maximumRepairQueueEntries",
  "wait-seconds-to-repair-rebooting": "waitSecondsToRepairRebooting",
  "maximum-unhealthy-machines-per-rack": "maximumUnhealthyMachinesPerRack",
} as const;

type ReplayConstraints = { [K in (typeof REPLAYABLE)[keyof typeof REPLAYABLE]]?: number };

/** What the `--set`s ask for: the intake's constraints and the health checks' gate limits. */
export interface ReplaySettings {
  readonly constraints: ReplayConstraints;
  readonly healthChecks: ReadonlyArray<{ readonly name: string; readonly maxUnhealthy?: string; readonly unhealthyRange?: string }>;
}

/** `health-check.NAME.max-unhealthy=40%` or `health-check.NAME.unhealthy-range=[1-3]` (NAME as configured). */
const HEALTH_CHECK_SETTING = /^health-check\.([a-z0-9]([-a-z0-9]*[a-z0-9])?)\.(max-unhealthy|unhealthy-range)=(.{1,32})$/;

/** `--since`: an RFC 3339 time, a number of days (`7d`) or a duration (`12h`, `90m`) before `now`. */
export function replaySince(text: string, now: number): string {
  if (/^\d{4}-\d\d-\d\dT/.test(text)) {
    if (Number.isNaN(Date.parse(text))) throw new InvalidArgumentError(`invalid time ${JSON.stringify(text)} (RFC 3339, e.g. 2026-11-16T00:00:00Z)`);
    return text;
  }
  const days = /^(\d{1,3})d$/.exec(text);
  if (days) return new Date(now - Number(days[1]) * 86_400_000).toISOString();
  try {
    return new Date(now - parseDuration(text)).toISOString();
  } catch {
    throw new InvalidArgumentError(`invalid time ${JSON.stringify(text)}: an RFC 3339 time, days (7d) or a duration (12h, 90m) before now`);
  }
}

/** One `--set NAME=VALUE`, added to the ones before it (a health check's later limit replaces its earlier one). */
export function replaySetting(text: string, previous: ReplaySettings = { constraints: {}, healthChecks: [] }): ReplaySettings {
  if (text.startsWith("health-check.")) {
    const m = HEALTH_CHECK_SETTING.exec(text);
    const [name, key, value] = [m?.[1], m?.[3], m?.[4]];
    if (name === undefined || value === undefined) {
      throw new InvalidArgumentError(
        `expected health-check.NAME.max-unhealthy=VALUE or health-check.NAME.unhealthy-range=[MIN-MAX] with NAME a health check's name, got ${JSON.stringify(text)}`,
      );
    }
    if (key === "max-unhealthy" && parseMaxUnhealthy(value) === null)
      throw new InvalidArgumentError(`health-check.${name}.max-unhealthy: a whole number or a percentage 0-100% (e.g. 3 or 40%), got ${JSON.stringify(value)}`);
    if (key === "unhealthy-range" && parseUnhealthyRange(value) === null)
      throw new InvalidArgumentError(`health-check.${name}.unhealthy-range: [MIN-MAX] with MIN <= MAX (e.g. [1-3]), got ${JSON.stringify(value)}`);
    const limit = key === "max-unhealthy" ? { name, maxUnhealthy: value } : { name, unhealthyRange: value };
    return { ...previous, healthChecks: [...previous.healthChecks.filter((h) => h.name !== name), limit] };
  }
  const match = /^([a-z-]+)=(\d{1,7})$/.exec(text);
  const name = match?.[1] as keyof typeof REPLAYABLE | undefined;
  if (!match || name === undefined || !Object.hasOwn(REPLAYABLE, name)) {
    throw new InvalidArgumentError(
      `expected NAME=VALUE with NAME one of ${Object.keys(REPLAYABLE).join(", ")}, health-check.NAME.max-unhealthy, health-check.NAME.unhealthy-range and VALUE a whole number (a check's limit as in the config), got ${JSON.stringify(text)}`,
    );
  }
  return { ...previous, constraints: { ...previous.constraints, [REPLAYABLE[name]]: Number(match[2]) } };
}

/** `--pacing rack,machine_type` (the domains to pace by, each once) or `--pacing none` (no pacing), as the API spells them. */
export function replayPacing(text: string): Op.PacingDomainKind[] {
  if (text === "none") return [];
  const names = text.split(",");
  const known: Record<string, Op.PacingDomainKind> = { rack: "RACK", machine_type: "MACHINE_TYPE" };
  if (names.some((n) => !Object.hasOwn(known, n)) || new Set(names).size !== names.length) {
    throw new InvalidArgumentError(`expected "none" or a comma-separated list of rack, machine_type (each once), got ${JSON.stringify(text)}`);
  }
  return names.map((n) => known[n]!);
}

/** `--max-concurrent-repairs N`: a whole number (the server says the range). */
function wholeNumber(text: string): number {
  if (!/^\d{1,7}$/.test(text)) throw new InvalidArgumentError(`expected a whole number, got ${JSON.stringify(text)}`);
  return Number(text);
}

/** The replay as text: a summary line, then each differing poll and its machines (text from the server escaped). */
export function replayReport(r: Op.SimulateAutoRepairQuery["simulateAutoRepair"]): string {
  const lines = [
    `replayed ${r.pollsReplayed} polls${r.remediationsReplayed > 0 ? ` and ${r.remediationsReplayed} health-check remediations` : ""}: ${r.enqueuedLive} entries enqueued, ${r.enqueuedSimulated} would have been; ${r.polls.length} ${r.remediationsReplayed > 0 ? "evaluations" : "polls"} differ` +
      (r.truncated ? " (truncated: narrow --since)" : "") +
      (r.unreadableRecords > 0 ? `; ${r.unreadableRecords} unreadable records left out` : "") +
      (r.unconfiguredChecks.length > 0 ? `; carried as recorded (no longer configured): ${r.unconfiguredChecks.map(escapeControlCharacters).join(", ")}` : ""),
  ];
  const intake = (i: { enqueued: readonly string[]; shortCircuited: boolean; queueSize: number }) =>
    `enqueued ${i.enqueued.length}${i.shortCircuited ? " (short-circuited)" : ""}, queue ${i.queueSize}`;
  for (const p of r.polls) {
    lines.push(`${p.time}  ${escapeControlCharacters(p.source)}  was: ${intake(p.live)}  would be: ${intake(p.simulated)}`);
    for (const t of p.targets) lines.push(`  ${escapeControlCharacters(t.node)}  ${t.address ?? "-"}  ${t.live.toLowerCase()} -> ${t.simulated.toLowerCase()}`);
    for (const d of p.differences)
      lines.push(`  ${escapeControlCharacters(d.serial)}  ${d.address ?? "-"}  ${d.live.toLowerCase()} -> ${d.simulated.toLowerCase()}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * `kintsugi replay --since 7d --set maximum-repair-queue-entries=5 [--set health-check.NAME.max-unhealthy=40%]
 * [--repair-time 1h] [--pacing rack,machine_type|none] [--max-concurrent-repairs N] [--json]`.
 */
export function replayCommand(io: CliIo): Command {
  return new Command("replay")
    .description(
      "replay the recorded sabakan polls and health-check remediations with other limits and print, evaluation by evaluation, what would have differed (reads only)",
    )
    .addOption(
      new Option("--since <TIME>", "from when: RFC 3339, days (7d) or a duration (12h) before now")
        .default("7d")
        .argParser((text) => replaySince(text, Date.now())),
    )
    .addOption(
      new Option(
        "--set <NAME=VALUE>",
        "a limit to replay with (repeatable): maximum-repair-queue-entries, wait-seconds-to-repair-rebooting, maximum-unhealthy-machines-per-rack, health-check.NAME.max-unhealthy (3, 40%), health-check.NAME.unhealthy-range ([1-3])",
      ).argParser(replaySetting),
    )
    .addOption(
      new Option("--repair-time <DURATION>", "how long a simulated repair takes once started (default 1h)").argParser((text) =>
        Math.round(parseDuration(text) / 1000),
      ),
    )
    .addOption(
      new Option("--pacing <DOMAINS>", "pace simulated repairs by rack, machine_type (comma-separated) or none, instead of repair.pacing").argParser(
        replayPacing,
      ),
    )
    .addOption(new Option("--max-concurrent-repairs <N>", "simulate repairs under this max_concurrent_repairs instead of the config's").argParser(wholeNumber))
    .addOption(new Option("--json", "print the whole answer as JSON instead"))
    .action(
      async (options: {
        since: string;
        set?: ReplaySettings;
        repairTime?: number;
        pacing?: Op.PacingDomainKind[];
        maxConcurrentRepairs?: number;
        json?: boolean;
      }) => {
        const since = options.since.includes("T") && !Number.isNaN(Date.parse(options.since)) ? options.since : replaySince(options.since, Date.now());
        const pacing =
          options.pacing === undefined && options.maxConcurrentRepairs === undefined
            ? null
            : { domains: options.pacing ?? null, maxConcurrentRepairs: options.maxConcurrentRepairs ?? null };
        const healthChecks = options.set && options.set.healthChecks.length > 0 ? options.set.healthChecks : null;
        const r = await io.client().request<Op.SimulateAutoRepairQuery>(D.SimulateAutoRepair, {
          since,
          constraints: options.set?.constraints ?? null,
          repairSeconds: options.repairTime ?? null,
          healthChecks,
          pacing,
        });
        io.out(options.json ? ckeJson(r.simulateAutoRepair) : replayReport(r.simulateAutoRepair));
      },
    );
}
