import type { Alert } from "../domain/alerts/alert.js";

export interface WebhookPosterOptions {
  readonly url: string;
  /** The JSON body to POST for an alert. */
  readonly format: (alert: Alert) => Record<string, unknown>;
  /** One line per problem (stderr). */
  readonly log: (line: string) => void;
  /** First retry delay; doubled after each failure up to `maxRetryMs`. Default 500 ms. */
  readonly initialRetryMs?: number;
  /** Default 30 s. */
  readonly maxRetryMs?: number;
  /** Alerts waiting beyond this drop the oldest. Default 1,000. */
  readonly maxQueue?: number;
  /** One POST's time limit. Default 10 s. */
  readonly timeoutMs?: number;
  /** Attempts at an alert the webhook refuses with a 4xx other than 408 and 429 (it will not take it). Default 3. */
  readonly clientErrorAttempts?: number;
  readonly fetch?: typeof fetch;
}

type Attempt = { readonly ok: true } | { readonly ok: false; readonly why: string; readonly refused: boolean; readonly retryAfterMs: number | null };

/**
 * Posts alerts to a chat webhook one at a time, in order: alert N+1 is not sent before N was delivered. A failed
 * POST (network error, time-out, non-2xx) is retried with exponential back-off; the queue is bounded (the oldest
 * are dropped and the next message says how many). Never throws into its caller.
 */
export class WebhookPoster {
  private readonly queue: Alert[] = [];
  private readonly stop = new AbortController();
  private dropped = 0;
  private delivering: Promise<void> | null = null;
  private inFlight = false;
  private closed = false;
  private delivered = 0;

  constructor(private readonly options: WebhookPosterOptions) {}

  /** Queues an alert; returns at once. */
  post(alert: Alert): void {
    if (this.closed) return;
    this.queue.push(alert);
    if (this.queue.length > (this.options.maxQueue ?? 1000)) {
      this.queue.shift();
      this.dropped++;
    }
    this.delivering ??= this.run()
      .catch((err: unknown) => this.options.log(`cannot post alerts: ${(err as Error).message}`))
      .finally(() => (this.delivering = null));
  }

  /** Alerts not yet delivered (queued or being posted). */
  get pending(): number {
    return this.queue.length + (this.inFlight ? 1 : 0);
  }

  /** Alerts delivered so far. */
  get deliveredCount(): number {
    return this.delivered;
  }

  /**
   * Shutdown: waits up to `timeoutMs` for the queue to empty, then stops (abandoning a POST in flight and its
   * retries). Returns how many alerts were not delivered.
   */
  async drain(timeoutMs = 10_000): Promise<number> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([this.idle(), deadline]);
    clearTimeout(timer);
    return this.close();
  }

  /** Stops at once; returns how many alerts were not delivered. */
  async close(): Promise<number> {
    const left = this.pending;
    this.closed = true;
    this.queue.length = 0;
    this.stop.abort();
    await this.delivering;
    return left;
  }

  private async idle(): Promise<void> {
    while (this.delivering) await this.delivering;
  }

  private async run(): Promise<void> {
    for (let alert = this.queue.shift(); alert && !this.closed; alert = this.queue.shift()) {
      if (this.dropped > 0) {
        alert = { ...alert, text: `${alert.text}\n(${this.dropped} earlier alert${this.dropped === 1 ? "" : "s"} dropped: the webhook was failing)` };
        this.dropped = 0;
      }
      this.inFlight = true;
      try {
        await this.deliver(alert);
      } finally {
        this.inFlight = false;
      }
    }
  }

  private async deliver(alert: Alert): Promise<void> {
    const body = JSON.stringify(this.options.format(alert));
    const initial = this.options.initialRetryMs ?? 500;
    const max = this.options.maxRetryMs ?? 30_000;
    let refusals = 0;
    for (let failures = 0; !this.closed; failures++) {
      const result = await this.attempt(body);
      if (result.ok) {
        this.delivered++;
        return;
      }
      if (this.closed) return;
      if (result.refused && ++refusals >= (this.options.clientErrorAttempts ?? 3)) {
        this.options.log(`webhook refused "${alert.title}" ${refusals} times (${result.why}); dropped`);
        this.dropped++;
        return;
      }
      const delay = Math.min(result.retryAfterMs ?? initial * 2 ** failures, max);
      this.options.log(`webhook post failed (${result.why}); retrying in ${(delay / 1000).toFixed(1)}s`);
      await this.sleep(delay);
    }
  }

  private async attempt(body: string): Promise<Attempt> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 10_000);
    try {
      const res = await (this.options.fetch ?? fetch)(this.options.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.any([this.stop.signal, timeout]),
      });
      const answer = (await res.text()).slice(0, 200).trim();
      if (res.ok) return { ok: true };
      const retryAfter = Number(res.headers.get("retry-after") ?? NaN);
      return {
        ok: false,
        why: `HTTP ${res.status}${answer ? `: ${answer}` : ""}`,
        refused: res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429,
        retryAfterMs: Number.isFinite(retryAfter) && retryAfter >= 0 ? retryAfter * 1000 : null,
      };
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      const why = timeout.aborted ? "timed out" : (cause?.code ?? cause?.message ?? (err as Error).message);
      return { ok: false, why, refused: false, retryAfterMs: null };
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stop.signal.removeEventListener("abort", done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.stop.signal.addEventListener("abort", done);
    });
  }
}
