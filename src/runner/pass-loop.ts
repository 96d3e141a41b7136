/** setTimeout's longest delay. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** How a {@link PassLoop} runs its passes. */
export interface PassLoopOptions<T, R> {
  /** One pass. `signal` aborts when the loop stops, so a pass waiting on a slow call can end early. */
  readonly pass: (trigger: T, signal: AbortSignal) => Promise<R>;
  readonly now: () => number;
  /** Requests made while a pass runs are folded into one more pass; this picks that pass's trigger. */
  readonly merge: (earlier: T, later: T) => T;
  /** A failed requested or timed pass (a pass started by `run` or `tryRun` rejects to its caller instead). */
  readonly onError: (err: unknown) => void;
  /** The timer (see `startTimer`): a pass runs at least this often, and when `nextAt` of the last result says. */
  readonly timer?: {
    readonly trigger: T;
    /** Infinity = only when `nextAt` says. */
    readonly intervalMs: number;
    /** When to look again at the latest after this result (ms since the epoch; null = at the interval). */
    readonly nextAt?: (result: R) => number | null;
  };
}

/**
 * One pass at a time: requests coalesce into one more pass after the running one, an operator's `run` waits its
 * turn, a scheduled `tryRun` is skipped while a pass runs, and (once `startTimer` is called) a pass runs when the
 * last one said to look again and at least every interval. The repair runner, the health checks, the auto-repair
 * poller and cluster generation each drive their work through one of these.
 */
export class PassLoop<T, R> {
  private current: Promise<R> | null = null;
  private queued: { trigger: T } | null = null;
  private timer: NodeJS.Timeout | undefined;
  private timed = false;
  private closed = false;
  private passes = 0;
  private readonly abort = new AbortController();
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly options: PassLoopOptions<T, R>) {}

  /** How many passes have ended (for tests and benchmarks). */
  get passCount(): number {
    return this.passes;
  }

  /** Aborted once `stop` is called. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /** A pass as soon as possible: at once when idle, else one more after the running pass. Never rejects. */
  request(trigger: T): void {
    if (this.closed) return;
    this.queued = this.queued ? { trigger: this.options.merge(this.queued.trigger, trigger) } : { trigger };
    if (!this.current) this.arm(0);
  }

  /** A pass with `trigger` once the running one (if any) has ended; resolves with its result. */
  async run(trigger: T): Promise<R> {
    while (this.current) await this.current.catch(() => undefined);
    if (this.closed) throw new Error("stopped: no more passes run");
    return this.begin(trigger);
  }

  /** A pass with `trigger` now, or null (and no pass) when one is running or the loop is stopped. */
  tryRun(trigger: T): Promise<R> | null {
    if (this.closed || this.current) return null;
    return this.begin(trigger);
  }

  /**
   * From the end of the next pass on, a pass runs when the last result said and at least every interval (needs
   * `options.timer`). Starts no pass by itself: `request` one to begin at once.
   */
  startTimer(): void {
    if (this.options.timer && !this.closed) this.timed = true;
  }

  /** Waits until no pass runs and none is requested. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Runs no more passes, aborts `signal`, and waits for the running pass to end. */
  async stop(): Promise<void> {
    this.closed = true;
    this.queued = null;
    clearTimeout(this.timer);
    this.abort.abort();
    await this.idle();
  }

  private isIdle(): boolean {
    return this.current === null && this.queued === null;
  }

  private arm(delayMs: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.fire(), Math.max(0, delayMs));
    // A timed pass alone must not keep a process alive; a requested one (delay 0) runs before it may end.
    if (delayMs > 0) this.timer.unref();
  }

  private fire(): void {
    if (this.closed || this.current) return;
    const queued = this.queued;
    this.queued = null;
    const timer = this.timed ? this.options.timer : undefined;
    if (!queued && !timer) return;
    const trigger = queued ? queued.trigger : (timer as NonNullable<typeof timer>).trigger;
    this.begin(trigger).catch((err: unknown) => this.options.onError(err));
  }

  private begin(trigger: T): Promise<R> {
    clearTimeout(this.timer);
    const run = Promise.resolve().then(() => this.options.pass(trigger, this.abort.signal));
    this.current = run;
    run.then(
      (result) => this.ended(this.options.timer?.nextAt?.(result) ?? null),
      () => this.ended(null),
    );
    return run;
  }

  private ended(nextAt: number | null): void {
    this.current = null;
    this.passes++;
    if (!this.closed && this.queued) return this.arm(0);
    if (!this.closed && this.timed && this.options.timer) {
      const now = this.options.now();
      const due = Math.min(nextAt ?? Infinity, now + this.options.timer.intervalMs);
      // A later time is re-armed by the pass this one starts; setTimeout cannot wait longer.
      if (Number.isFinite(due)) this.arm(Math.min(due - now, MAX_TIMER_MS));
    }
    if (this.isIdle()) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
