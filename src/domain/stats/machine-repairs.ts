import type { FinishedRepair } from "../queue/finished-repair.js";

/** One repair of a machine, with the time the machine ran since its repair before. */
export interface MachineRepair {
  readonly repair: FinishedRepair;
  /** From the previous repair's finish to this one's creation (ms); null for the first one known. */
  readonly sincePreviousMs: number | null;
}

/** Every repair of one machine and the time between its failures. */
export interface MachineRepairHistory {
  readonly repairs: readonly MachineRepair[];
  /** The mean of the known times between failures (ms); null with fewer than two repairs. */
  readonly meanTimeBetweenFailuresMs: number | null;
}

/** A machine and how often it was repaired: a candidate for retirement. */
export interface FrequentlyRepaired {
  readonly address: string;
  readonly machineType: string;
  readonly repairs: number;
  readonly succeeded: number;
  readonly failed: number;
  /** The latest repair's finish (ms). */
  readonly lastFinishedAt: number;
}

const byCreation = (a: FinishedRepair, b: FinishedRepair) => a.createdAt - b.createdAt || a.sequence - b.sequence;

/**
 * The repairs of the machine at `addresses` (a machine may have several), oldest first, each with the time since the
 * previous one finished (0 when it was enqueued before that one finished, as a repeat enqueue can be).
 */
export function machineRepairs(records: readonly FinishedRepair[], addresses: readonly string[]): MachineRepairHistory {
  const wanted = new Set(addresses);
  const own = records.filter((r) => wanted.has(r.address)).sort(byCreation);
  const repairs = own.map((repair, i): MachineRepair => ({
    repair,
    sincePreviousMs: i === 0 ? null : Math.max(0, repair.createdAt - own[i - 1]!.finishedAt),
  }));
  const gaps = repairs.flatMap((r) => (r.sincePreviousMs === null ? [] : [r.sincePreviousMs]));
  return { repairs, meanTimeBetweenFailuresMs: gaps.length === 0 ? null : gaps.reduce((a, b) => a + b, 0) / gaps.length };
}

/**
 * The `top` machines repaired most among the repairs finished at or after `since` (ms), most repairs first, then the
 * latest repaired, then by address. A machine's type is its latest repair's.
 */
export function frequentlyRepaired(records: readonly FinishedRepair[], since: number, top: number): FrequentlyRepaired[] {
  const machines = new Map<string, FrequentlyRepaired>();
  for (const r of [...records].filter((r) => r.finishedAt >= since).sort(byCreation)) {
    const known = machines.get(r.address);
    machines.set(r.address, {
      address: r.address,
      machineType: r.machineType,
      repairs: (known?.repairs ?? 0) + 1,
      succeeded: (known?.succeeded ?? 0) + (r.status === "succeeded" ? 1 : 0),
      failed: (known?.failed ?? 0) + (r.status === "failed" ? 1 : 0),
      lastFinishedAt: Math.max(known?.lastFinishedAt ?? 0, r.finishedAt),
    });
  }
  return [...machines.values()]
    .sort((a, b) => b.repairs - a.repairs || b.lastFinishedAt - a.lastFinishedAt || (a.address < b.address ? -1 : a.address > b.address ? 1 : 0))
    .slice(0, Math.max(0, top));
}
