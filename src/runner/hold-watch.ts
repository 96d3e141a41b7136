import type { MachineHold } from "../domain/holds/machine-holds.js";

/**
 * The machine holds the latest repair pass found, for a job between two commands: a hold lets the running command
 * finish and stops the step before its next one, so a step's retry waits here until its machine is released.
 */
export class HoldWatch {
  private holds: ReadonlyMap<string, MachineHold> = new Map();
  private readonly waiters = new Set<() => void>();

  /** Takes the holds a pass found, and lets go every job whose machine they no longer hold. */
  update(holds: ReadonlyMap<string, MachineHold>): void {
    this.holds = holds;
    for (const check of [...this.waiters]) check();
  }

  /** Resolves true once no hold is on `address` (at once when none is now), false when `signal` aborts first. */
  readonly untilReleased = (address: string, signal: AbortSignal): Promise<boolean> => {
    if (signal.aborted) return Promise.resolve(false);
    if (!this.holds.has(address)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const settle = (released: boolean) => {
        this.waiters.delete(check);
        signal.removeEventListener("abort", onAbort);
        resolve(released);
      };
      const check = () => {
        if (!this.holds.has(address)) settle(true);
      };
      const onAbort = () => settle(false);
      this.waiters.add(check);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  };
}
