/**
 * Timers on the scenario's clock (seconds since the scenario began, see Story.now): what runs at a time of the story,
 * however fast or slow the wall clock runs it (`scale`) and however long the process is starved.
 */
export class ScenarioTimers {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly now: () => number,
    private readonly scale: number,
  ) {}

  /** Runs `run` when the scenario's clock reaches `seconds`. */
  at(seconds: number, run: () => void): void {
    const delay = Math.max(0, (seconds - this.now()) * this.scale * 1000);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      // The scenario's clock stands still while the process is starved (demo-clock.ts): not yet, then.
      if (this.now() < seconds) this.at(seconds, run);
      else run();
    }, delay);
    this.timers.add(timer);
  }

  /** Runs `run` every `seconds` of the scenario's clock. */
  every(seconds: number, run: () => unknown): void {
    this.at(this.now() + seconds, () => {
      run();
      this.every(seconds, run);
    });
  }

  /** Cancels every timer. */
  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
