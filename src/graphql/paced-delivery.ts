/** What a delivery hands an event to: a subscriber's push. */
export interface Recipient<T> {
  push(value: T): void;
}

interface Delivery<T> {
  readonly recipients: readonly Recipient<T>[];
  readonly value: T;
  next: number;
}

/**
 * Hands events to their recipients a share at a time per turn of the event loop, in the order they were given, each
 * event to all its recipients before the next. A recipient's push writes the event to its subscriber's connection:
 * with 10,000 subscribers one event held the event loop for the whole fan-out (150 ms and more), and every /health
 * probe waited behind it. A turn hands events on `perTurn` recipients at a time for as long as `turnMs` has not
 * passed since it began (at least once): a fixed count a turn let an event loop busy with other work (adds, four at
 * once, with their commits) hand on one event a second to 10,000 subscribers, so that their clients' unread bytes grew
 * too slowly for the slow-reader bounds to close them while the events waiting piled up. An event for at most
 * `perTurn` recipients, with nothing waiting before it, is handed on at once; at most `maxWaiting` events wait (past
 * that the oldest is handed on whole at once: events come faster than they can be handed on, and what waits is
 * memory).
 */
export class PacedDelivery<T> {
  private readonly waiting: Delivery<T>[] = [];
  private scheduled = false;

  constructor(
    private readonly perTurn = 500,
    private readonly maxWaiting = 1000,
    private readonly turnMs = 10,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Hands `value` to every one of `recipients` (a list the caller will not change), now or in the next turns. */
  deliver(recipients: readonly Recipient<T>[], value: T): void {
    if (recipients.length === 0) return;
    if (this.waiting.length === 0 && recipients.length <= this.perTurn) {
      for (const recipient of recipients) recipient.push(value);
      return;
    }
    if (this.waiting.length >= this.maxWaiting) {
      const oldest = this.waiting.shift() as Delivery<T>;
      for (; oldest.next < oldest.recipients.length; oldest.next++) (oldest.recipients[oldest.next] as Recipient<T>).push(oldest.value);
    }
    this.waiting.push({ recipients, value, next: 0 });
    if (this.scheduled) return;
    // The publisher's own turn: one share, not a turn's time of it.
    this.handOn(this.perTurn);
    this.schedule();
  }

  /** Events given and not yet handed to all their recipients. */
  get pending(): number {
    return this.waiting.length;
  }

  private readonly turn = (): void => {
    this.scheduled = false;
    const began = this.now();
    do this.handOn(this.perTurn);
    while (this.waiting.length > 0 && this.now() - began < this.turnMs);
    this.schedule();
  };

  private schedule(): void {
    if (this.waiting.length === 0 || this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  /** Hands the waiting events on to `count` recipients (fewer once none wait). */
  private handOn(count: number): void {
    let budget = count;
    while (budget > 0 && this.waiting.length > 0) {
      const delivery = this.waiting[0] as Delivery<T>;
      const end = Math.min(delivery.recipients.length, delivery.next + budget);
      budget -= end - delivery.next;
      for (; delivery.next < end; delivery.next++) (delivery.recipients[delivery.next] as Recipient<T>).push(delivery.value);
      if (delivery.next === delivery.recipients.length) this.waiting.shift();
    }
  }
}
