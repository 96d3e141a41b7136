/**
 * Lets at most `perTurn` pieces of work start in one turn of the event loop; the others start in later turns, in the
 * order given, `perTurn` a turn. Work that arrives together (a burst of requests read in one poll of the sockets,
 * health checks started at once) otherwise runs in one go, and everything else the loop serves (`/health`, the other
 * requests) waits for all of it. The first `perTurn` of a turn start at once: pacing costs nothing until a turn is
 * full. `start` must not throw: it is called from a timer callback once the work has waited.
 */
export class TurnQuota {
  private readonly waiting: Array<() => void> = [];
  /** Started since the turn began (the turn ends at the next `setImmediate` callback). */
  private started = 0;
  private scheduled = false;

  constructor(private readonly perTurn: number) {
    if (!Number.isSafeInteger(perTurn) || perTurn < 1) throw new Error(`a turn quota is a whole number of at least 1, not ${perTurn}`);
  }

  /** Calls `start` now if this turn's quota has room and nothing waits, else in a later turn. */
  inTurn(start: () => void): void {
    this.schedule();
    if (this.started < this.perTurn && this.waiting.length === 0) {
      this.started++;
      start();
    } else this.waiting.push(start);
  }

  /** Resolves now (a microtask later) if this turn's quota has room and nothing waits, else in a later turn. */
  turn(): Promise<void> {
    return new Promise((resolve) => this.inTurn(resolve));
  }

  /** How many wait for a later turn. */
  get pending(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.nextTurn);
  }

  private readonly nextTurn = (): void => {
    this.scheduled = false;
    const starting = this.waiting.splice(0, this.perTurn);
    this.started = starting.length;
    // The next turn begins at the next callback: it resets the count, and starts what still waits.
    if (starting.length > 0) this.schedule();
    for (const start of starting) start();
  };
}
