import { escapeControlCharacters } from "../domain/shared/untrusted-text.js";
import type * as Op from "./generated/operations.js";

/** Seconds as a short duration: `45s`, `12m`, `1h5m`, `2d3h` (rounded down to its two largest units). */
export function shortDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60)];
  if (d > 0) return h > 0 ? `${d}d${h}h` : `${d}d`;
  if (h > 0) return m > 0 ? `${h}h${m}m` : `${h}h`;
  if (m > 0) return `${m}m`;
  return `${s}s`;
}

/** Rows under titles, columns padded to their widest cell; every cell is escaped (machine types come from sabakan). */
function table(titles: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const cells = rows.map((r) => r.map(escapeControlCharacters));
  const widths = titles.map((t, i) => Math.max(t.length, ...cells.map((r) => (r[i] as string).length)));
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] as number)))
      .join("  ")
      .trimEnd();
  return [line(titles), ...cells.map(line)].join("\n") + "\n";
}

const KEY_COLUMNS = [
  ["machineType", "MACHINE TYPE"],
  ["operation", "OPERATION"],
  ["rack", "RACK"],
  ["step", "STEP"],
] as const;

type StatsGroup = Op.RepairStatsQuery["repairStats"][number];

/** repairStats as a table: the grouped-by columns, then the outcomes, time to repair, draining and steps. */
export function statsTable(groups: readonly StatsGroup[]): string {
  if (groups.length === 0) return "no repair ended in the range\n";
  const keys = KEY_COLUMNS.filter(([field]) => groups.some((g) => g[field] !== null));
  const titles = [
    ...keys.map(([, title]) => title),
    "ENTRIES",
    "SUCCEEDED",
    "FAILED",
    "DELETED",
    "SUCCESS",
    "TTR P50",
    "TTR P90",
    "TTR MAX",
    "DRAINING",
    "STEPS P50",
    "STEPS MAX",
  ];
  const rows = groups.map((g) => [
    ...keys.map(([field]) => g[field] ?? "-"),
    String(g.entries),
    String(g.succeeded),
    String(g.failed),
    String(g.deleted),
    g.successRate === null ? "-" : `${(g.successRate * 100).toFixed(1)}%`,
    g.timeToRepair ? shortDuration(g.timeToRepair.p50Seconds) : "-",
    g.timeToRepair ? shortDuration(g.timeToRepair.p90Seconds) : "-",
    g.timeToRepair ? shortDuration(g.timeToRepair.maxSeconds) : "-",
    shortDuration(g.drainingSeconds),
    g.stepsNeededP50 === null ? "-" : String(g.stepsNeededP50),
    g.stepsNeededMax === null ? "-" : String(g.stepsNeededMax),
  ]);
  const partial = groups.reduce((n, g) => n + g.entries - g.withHistory, 0);
  const note = partial > 0 ? `(${partial} repairs without their history read: draining and steps leave them out)\n` : "";
  return table(titles, rows) + note;
}

/** One machine's repairs, oldest first, with the time since the previous one. */
export function machineRepairsTable(answer: Op.MachineRepairsQuery["machineRepairs"]): string {
  if (answer.repairs.length === 0) return "no kept repair of this machine\n";
  const rows = answer.repairs.map((r) => [
    String(r.index),
    r.address,
    r.machineType,
    r.operation,
    r.status,
    r.createdAt,
    r.finishedAt,
    r.secondsSincePrevious === null ? "-" : shortDuration(r.secondsSincePrevious),
  ]);
  const mean = answer.meanSecondsBetweenFailures === null ? "" : `mean time between failures: ${shortDuration(answer.meanSecondsBetweenFailures)}\n`;
  return table(["INDEX", "ADDRESS", "MACHINE TYPE", "OPERATION", "STATUS", "CREATED", "FINISHED", "SINCE PREVIOUS"], rows) + mean;
}

/** The machines repaired most. */
export function frequentTable(machines: Op.FrequentlyRepairedQuery["frequentlyRepaired"]): string {
  if (machines.length === 0) return "no repair ended in the range\n";
  return table(
    ["ADDRESS", "MACHINE TYPE", "REPAIRS", "SUCCEEDED", "FAILED", "LAST FINISHED"],
    machines.map((m) => [m.address, m.machineType, String(m.repairs), String(m.succeeded), String(m.failed), m.lastFinishedAt]),
  );
}
