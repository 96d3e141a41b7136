import type { Alert } from "../domain/alerts/alert.js";
import {
  addAlert,
  dueGroups,
  flushAll,
  nextDue,
  NO_PENDING_GROUPS,
  waitingAlerts,
  type GroupingState,
  type GroupingStep,
} from "../domain/alerts/alert-grouping.js";

export interface AlertGrouperOptions {
  /** How long the first alert of a group waits for its likes; 0 posts every alert at once, on its own. */
  readonly windowMs: number;
  /** Where messages go, in order. */
  readonly post: (alert: Alert) => void;
  readonly now?: () => number;
}

/**
 * Groups alerts as the pure rules of alert-grouping.ts say, with a timer that posts each group when its window
 * ends. `close()` posts whatever waits, at once, so nothing is lost at shutdown.
 */
export class AlertGrouper {
  private state: GroupingState = NO_PENDING_GROUPS;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly options: AlertGrouperOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Takes an alert: it is posted now, or with its group within the window. After close(), at once. */
  add(alert: Alert): void {
    if (this.closed) return this.options.post(alert);
    this.apply(addAlert(this.state, alert, this.now(), this.options.windowMs));
  }

  /** Alerts waiting in groups. */
  get waiting(): number {
    return waitingAlerts(this.state);
  }

  /** Posts every waiting group now and stops the timer. */
  close(): void {
    this.closed = true;
    this.apply(flushAll(this.state));
  }

  private apply(step: GroupingStep): void {
    this.state = step.state;
    for (const alert of step.post) this.options.post(alert);
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const due = nextDue(this.state, this.options.windowMs);
    if (due === null || this.closed) return;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.apply(dueGroups(this.state, this.now(), this.options.windowMs));
      },
      Math.max(0, due - this.now()),
    );
  }
}
