/** No slot came free in time, or too many already wait; the message says which and names the config key. */
export class SlotsFullError extends Error {
  override readonly name = "SlotsFullError";
}

interface Waiter {
  readonly grant: () => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * At most `max` fetches in flight at once; a fetch past them waits, first come first served, at most `waitMs`, and
 * at most `maxWaiting` wait at once: a full queue refuses at once, so a flood of requests costs a queue of bounded
 * length and no more. `what` names the bound in the errors (e.g. "sabakan.max_concurrent_requests").
 */
export class FetchSlots {
  private inFlight = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly max: number,
    private readonly maxWaiting: number,
    private readonly waitMs: number,
    private readonly what: string,
  ) {}

  /** Runs `work` in a slot, waiting for one if need be; SlotsFullError when none comes in time. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.max) {
      this.inFlight++;
      return Promise.resolve();
    }
    if (this.waiting.length >= this.maxWaiting) {
      return Promise.reject(
        new SlotsFullError(`${this.inFlight} fetches are in flight (${this.what}: ${this.max}) and ${this.waiting.length} more wait; try again shortly`),
      );
    }
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        // The slot passes straight from the fetch that ended to this one: inFlight does not change.
        grant: () => {
          clearTimeout(waiter.timer);
          resolve();
        },
        timer: setTimeout(() => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          reject(new SlotsFullError(`no fetch slot came free within ${this.waitMs / 1000} s (${this.what}: ${this.max} in flight at once); try again shortly`));
        }, this.waitMs),
      };
      this.waiting.push(waiter);
    });
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next.grant();
    else this.inFlight--;
  }
}
