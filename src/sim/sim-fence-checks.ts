import type { RepairChange } from "../store/store-port.js";
import type { Checks } from "./sim-checks.js";
import type { CommandStart } from "./sim-commands.js";

const what = (s: CommandStart) =>
  `the ${s.kind} command of entry ${s.entryIndex ?? "?"}${s.kind === "repair" ? ` (step ${s.step + 1}, attempt ${s.attempt})` : ""}`;

/**
 * The fence's invariants, on the world's truth (every command that runs, whichever replica started it, and those a
 * frozen replica left running): no two commands on one machine at once; no drain cordons a machine a command runs
 * on; no health check of an entry while a command of it runs; no repair command runs twice (the same entry, step
 * and attempt); and a step's watch ends only after its repair command started, or after the history recorded its
 * start (a replica that stopped between recording and starting it leaves nothing else to know).
 */
export class FenceInvariants {
  private readonly ran = new Set<string>();
  /** Entry and step of every repair command that started or whose start was recorded. */
  private readonly begun = new Set<string>();

  constructor(
    private readonly checks: Checks,
    /** The commands running on a machine now, orphans of a frozen replica included. */
    private readonly runningOn: (address: string) => readonly CommandStart[],
  ) {}

  /** A command starts (before it joins the running ones). */
  commandStarts(start: CommandStart): void {
    const other = this.runningOn(start.address)[0];
    this.checks.check(
      "no-two-commands-on-a-machine",
      other === undefined,
      () => `${what(start)} started on ${start.address} while ${other ? what(other) : ""} ran there (started ${new Date(other?.at ?? 0).toISOString()})`,
      start.address,
      start.entryIndex,
    );
    if (start.kind !== "repair" || start.entryIndex === null) return;
    const key = `${start.entryIndex}:${start.step}:${start.attempt}`;
    this.checks.check("no-step-run-twice", !this.ran.has(key), () => `${what(start)} ran a second time on ${start.address}`, start.address, start.entryIndex);
    this.ran.add(key);
    this.begun.add(`${start.entryIndex}:${start.step}`);
  }

  /** A drain cordons the machine at `address` for `entryIndex`. */
  cordons(address: string, entryIndex: number | null): void {
    const other = this.runningOn(address)[0];
    this.checks.check(
      "no-drain-beside-a-command",
      other === undefined,
      () => `entry ${entryIndex ?? "?"} cordoned ${address} to drain it while ${other ? what(other) : ""} ran there`,
      address,
      entryIndex,
    );
  }

  /** A health check of `entryIndex` runs on the machine at `address`. */
  healthChecked(address: string, entryIndex: number | null): void {
    if (entryIndex === null) return;
    const own = this.runningOn(address).find((s) => s.entryIndex === entryIndex);
    this.checks.check(
      "no-health-check-beside-its-command",
      own === undefined,
      () => `entry ${entryIndex}'s health check ran on ${address} while ${own ? what(own) : ""} ran there`,
      address,
      entryIndex,
    );
  }

  /** Every committed change of an entry: a recorded start counts as begun; a watch that ends needs its command begun. */
  committed(change: RepairChange): void {
    const { entry, previous } = change;
    const marker = entry.command;
    if (marker?.command === "repair" && marker.operationId !== null) this.begun.add(`${entry.index}:${entry.step}`);
    if (previous === null || previous.stepStatus !== "watching" || entry.step <= previous.step) return;
    const key = `${entry.index}:${previous.step}`;
    this.checks.check(
      "no-step-without-its-command",
      this.begun.has(key),
      () =>
        `entry ${entry.index} went on to step ${entry.step + 1} though the repair command of step ${previous.step + 1} never started nor was recorded as started`,
      entry.address,
      entry.index,
    );
  }
}
