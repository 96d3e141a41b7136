import type { ExecutionResult } from "graphql";
import { listenTo } from "./pubsub.js";
import type { Recipient } from "./paced-delivery.js";
import { settlement, type Settled } from "./result-waiters.js";

type PromiseOrValue<T> = T | Promise<T>;

const isPromise = <T>(value: PromiseOrValue<T>): value is Promise<T> => typeof (value as { then?: unknown }).then === "function";

const DONE: IteratorResult<ExecutionResult> = Object.freeze({ value: undefined, done: true });

/** What a sink returns to end its subscription as done, with nothing to tell (its connection is going away). */
export const ENDED = "ended";

/** Where a pushed subscription's results go, in order, as they come. */
export interface SubscriptionSink {
  /**
   * Sends `result` to the subscriber as its next event; an error returned ends the subscription with it instead,
   * ENDED ends it as done.
   */
  next(result: ExecutionResult): Error | typeof ENDED | null;
}

/** How a pushed subscription turns an event into results, and how far its results may wait on each other. */
export interface PushedResults {
  /** The result of the subscription's document for `payload` (shared with every subscriber of its execution). */
  readonly resultFor: (payload: unknown) => PromiseOrValue<ExecutionResult>;
  /** The results that may wait for an earlier one still being executed (a join) before the subscription is ended. */
  readonly maxWaiting: number;
  /** The error that ends a subscription whose waiting results passed maxWaiting. */
  readonly behind: () => Error;
}

/** A pushed subscription: the stream graphql-ws iterates, and how to end it with an error. */
export interface PushedSubscription {
  readonly stream: AsyncIterableIterator<ExecutionResult>;
  readonly fail: (err: Error) => void;
}

/**
 * A subscription whose events go to `sink` as they are published, instead of one by one through its stream: null
 * when `source` is not a stream of our pubsub (see listenTo). graphql-ws's `for await` over a stream costs a chain
 * of promises per event and subscription (most of an event's CPU with 10,000 subscribers); here an event costs a
 * call. The stream graphql-ws iterates yields nothing: its one `next()` settles when the subscription ends, done
 * (the source ended, or `return()`: the client completed it or went) or rejected with the error that ended it
 * (graphql-ws then sends it as the subscription's `error` message, as for any stream). Results come in event order:
 * one that is a promise (a field that waits) holds the ones after it until it settles.
 */
export function pushedSubscription(source: AsyncIterableIterator<unknown>, results: PushedResults, sink: SubscriptionSink): PushedSubscription | null {
  let outcome: { readonly err: Error | null } | null = null;
  let wake: { resolve: (r: IteratorResult<ExecutionResult>) => void; reject: (err: Error) => void } | null = null;
  const finish = (err: Error | null): void => {
    if (outcome) return;
    outcome = { err };
    waiting.length = 0;
    void source.return?.();
    const woken = wake;
    wake = null;
    if (!woken) return;
    if (err) woken.reject(err);
    else woken.resolve(DONE);
  };
  const send = (result: ExecutionResult): void => {
    if (outcome) return;
    const err = sink.next(result);
    if (err === ENDED) finish(null);
    else if (err) finish(err);
  };
  // Results held behind one that is still a promise, oldest first.
  const waiting: Array<PromiseOrValue<ExecutionResult>> = [];
  let awaited = false;
  // Told once the result at the head of `waiting` settled.
  const resume: Recipient<Settled> = {
    push(settled) {
      awaited = false;
      if (!settled.ok) return finish(settled.err);
      if (waiting[0] === settled.promise) waiting[0] = settled.value;
      try {
        drain();
      } catch (err) {
        finish(err instanceof Error ? err : new Error(String(err)));
      }
    },
  };
  const drain = (): void => {
    while (waiting.length > 0 && !outcome) {
      const head = waiting[0] as PromiseOrValue<ExecutionResult>;
      if (isPromise(head)) {
        if (awaited) return;
        awaited = true;
        settlement(head).push(resume);
        return;
      }
      send(waiting.shift() as ExecutionResult);
    }
  };
  const listening = listenTo(source, {
    next(payload: unknown) {
      if (outcome) return;
      const result = results.resultFor(payload);
      if (waiting.length === 0 && !isPromise(result)) return send(result);
      if (waiting.length >= results.maxWaiting) return finish(results.behind());
      // Seen by drain once it is first in line; a rejection before then is not unhandled.
      if (isPromise(result)) settlement(result);
      waiting.push(result);
      drain();
    },
    fail: finish,
  });
  if (!listening) return null;
  const stream: AsyncIterableIterator<ExecutionResult> = {
    next() {
      if (outcome) return outcome.err ? Promise.reject(outcome.err) : Promise.resolve(DONE);
      return new Promise((resolve, reject) => (wake = { resolve, reject }));
    },
    return() {
      finish(null);
      return Promise.resolve(DONE);
    },
    throw(err: unknown) {
      finish(null);
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    },
    [Symbol.asyncIterator]: () => stream,
  };
  return { stream, fail: finish };
}
