import { PacedDelivery } from "./paced-delivery.js";

/** Raised into a subscriber's stream when it fell too far behind; graphql-ws sends it and ends the subscription. */
export class SubscriberTooSlowError extends Error {
  override readonly name = "SubscriberTooSlowError";

  /** The error of a subscription to `topic` that fell `events` behind. */
  static behind(events: number, topic: string): SubscriberTooSlowError {
    return new SubscriberTooSlowError(`subscriber fell ${events} events behind on ${topic} and was closed`);
  }
}

interface Subscriber<T> {
  readonly push: (value: T) => void;
  readonly fail: (err: Error) => void;
}

/** What a listened-to stream hands its events to, as they are published (see listenTo). */
export interface EventListener<T> {
  next(value: T): void;
  /** The stream ended with `err` (a filter that threw, or a listener's next that did); nothing follows. */
  fail(err: Error): void;
}

// How to listen to each stream subscribe made.
const listeners = new WeakMap<object, (listener: EventListener<never>) => void>();

/**
 * Switches a stream of PubSub.subscribe to handing each event to `listener` as it is published, synchronously, the
 * events it holds already first, instead of queueing them for `next()` (which then waits until the stream ends): a
 * subscriber that turns each event into bytes at once costs no promise per event. The stream's `return()` still ends
 * it. Returns false for any other value.
 */
export function listenTo<T>(stream: unknown, listener: EventListener<T>): boolean {
  const listen = stream !== null && typeof stream === "object" ? listeners.get(stream) : undefined;
  listen?.(listener as EventListener<never>);
  return listen !== undefined;
}

/**
 * Typed topics (topic name -> payload type, checked by the compiler). Publishing never waits for subscribers:
 * each has a bounded buffer, and one that falls `bufferSize` events behind is ended with a SubscriberTooSlowError,
 * so a stuck client cannot slow the runner or hold memory.
 */
export class PubSub<Topics extends Record<string, unknown>> {
  private readonly subscribers = new Map<keyof Topics, Set<Subscriber<never>>>();
  // Each topic's subscribers as a list, made again only once they change: a waiting delivery keeps the list it was
  // given, and a thousand events waiting for 10,000 subscribers share one list.
  private readonly lists = new Map<keyof Topics, readonly Subscriber<never>[]>();
  private readonly delivery: PacedDelivery<unknown>;

  /**
   * `bufferSize`: the events a subscriber may fall behind before it is ended; `perTurn`: the subscribers an event is
   * handed to at a time, a turn of the event loop going on for a few milliseconds (see PacedDelivery).
   */
  constructor(
    readonly bufferSize = 1000,
    perTurn?: number,
  ) {
    this.delivery = new PacedDelivery(perTurn, bufferSize);
  }

  publish<K extends keyof Topics>(topic: K, payload: Topics[K]): void {
    const set = this.subscribers.get(topic);
    if (!set || set.size === 0) return;
    let list = this.lists.get(topic);
    if (!list) {
      list = [...set];
      this.lists.set(topic, list);
    }
    this.delivery.deliver(list as readonly Subscriber<unknown>[], payload);
  }

  /** How many subscribers a topic has now. */
  count(topic: keyof Topics): number {
    return this.subscribers.get(topic)?.size ?? 0;
  }

  /**
   * The events of `topic` from now on; with `keep`, only those it accepts (judged as they are published, so that
   * the others are never queued nor handed on).
   */
  subscribe<K extends keyof Topics>(topic: K, keep?: (value: Topics[K]) => boolean): AsyncIterableIterator<Topics[K]> {
    const queue: Array<Topics[K]> = [];
    let waiting: ((r: IteratorResult<Topics[K]>) => void) | null = null;
    let failure: Error | null = null;
    let done = false;
    let listener: EventListener<Topics[K]> | null = null;
    const set = this.subscribers.get(topic) ?? new Set();
    this.subscribers.set(topic, set);
    const end = () => {
      done = true;
      if (set.delete(subscriber as Subscriber<never>)) this.lists.delete(topic);
    };
    const subscriber: Subscriber<Topics[K]> = {
      push: (value) => {
        if (done) return;
        if (keep) {
          let kept: boolean;
          try {
            kept = keep(value);
          } catch (err) {
            subscriber.fail(err instanceof Error ? err : new Error(String(err)));
            return;
          }
          if (!kept) return;
        }
        if (listener) {
          try {
            listener.next(value);
          } catch (err) {
            subscriber.fail(err instanceof Error ? err : new Error(String(err)));
          }
        } else if (waiting) {
          const resolve = waiting;
          waiting = null;
          resolve({ value, done: false });
        } else if (queue.length >= this.bufferSize) {
          subscriber.fail(SubscriberTooSlowError.behind(this.bufferSize, String(topic)));
        } else {
          queue.push(value);
        }
      },
      fail: (err) => {
        end();
        queue.length = 0;
        if (listener) {
          const told = listener;
          listener = null;
          told.fail(err);
          return;
        }
        failure = err;
        if (waiting) {
          const resolve = waiting;
          waiting = null;
          // Settled through next(): the waiting promise rejects there.
          resolve({ value: undefined as never, done: true });
        }
      },
    };
    set.add(subscriber as Subscriber<never>);
    this.lists.delete(topic);
    const iterator: AsyncIterableIterator<Topics[K]> = {
      next: () => {
        if (failure) {
          const err = failure;
          failure = null;
          return Promise.reject(err);
        }
        if (queue.length > 0) return Promise.resolve({ value: queue.shift() as Topics[K], done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => (waiting = resolve));
      },
      return: () => {
        end();
        listener = null;
        queue.length = 0;
        waiting?.({ value: undefined, done: true });
        waiting = null;
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    listeners.set(iterator, (to: EventListener<Topics[K]>) => {
      for (const value of queue.splice(0)) to.next(value);
      if (failure) {
        const err = failure;
        failure = null;
        to.fail(err);
      } else if (!done) listener = to;
    });
    return iterator;
  }
}
