import { outageStep, REACHABLE, type OutageState } from "../domain/service/outage-notice.js";
import type { Log } from "../support/log.js";

/**
 * Logs the failures of one loop's calls to a dependency (sabakan, Kubernetes) as outageStep decides: a warning when
 * they begin, a reminder at most every 5 minutes, a line when a call works again. Every loop that retries a failing
 * call reports to one of these instead of logging each failure.
 */
export class OutageLog {
  private state: OutageState = REACHABLE;

  /** `what`: the calls, as the lines name them ("the repair pass", "the auto-repair poll"); `level`: of the failure lines. */
  constructor(
    private readonly what: string,
    private readonly log: Pick<Log, "info" | "warn" | "error">,
    private readonly now: () => number,
    private readonly level: "warn" | "error" = "warn",
  ) {}

  /** Failed calls in a row so far (0 once one worked): what a retry's back-off is measured by. */
  get failures(): number {
    return this.state.failures;
  }

  /** One call failed with `err`; `fields` add what the line should say of it. */
  failed(err: unknown, fields: Record<string, unknown> = {}): void {
    const now = this.now();
    const since = this.state.downSince;
    const step = outageStep(this.state, "failed", now);
    this.state = step.state;
    const error = err instanceof Error ? err.message : String(err);
    if (step.notice === "down")
      this.log[this.level](`${this.what} failed; further failures are not logged until it works again, with a reminder every 5 minutes`, {
        ...fields,
        err: error,
      });
    if (step.notice === "still-down")
      this.log[this.level](`${this.what} is still failing`, {
        ...fields,
        err: error,
        failures: step.state.failures,
        failingForSeconds: Math.round((now - (since ?? now)) / 1000),
      });
  }

  /** One call worked. */
  worked(): void {
    const now = this.now();
    const { downSince, failures } = this.state;
    const step = outageStep(this.state, "worked", now);
    this.state = step.state;
    if (step.notice === "back") this.log.info(`${this.what} works again`, { failures, failedForSeconds: Math.round((now - (downSince ?? now)) / 1000) });
  }
}
