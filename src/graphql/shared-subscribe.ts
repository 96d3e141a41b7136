import { createSourceEventStream, type ExecutionArgs, type ExecutionResult } from "graphql";
import { SubscriberTooSlowError } from "./pubsub.js";
import { pushedSubscription, type SubscriptionSink } from "./pushed-subscription.js";
import { sharedResults } from "./shared-results.js";
import { subscriptionTopic } from "./limits/subscription-lag.js";

type PromiseOrValue<T> = T | Promise<T>;

const isPromise = <T>(value: PromiseOrValue<T>): value is Promise<T> => typeof (value as { then?: unknown }).then === "function";
// How to end each stream sharedSubscribe made with an error (see failSubscription).
const failers = new WeakMap<object, (err: Error) => void>();

/**
 * Ends a subscription stream made by sharedSubscribe with `err`: its source is let go at once, and the stream raises
 * `err` where it would yield its next event (graphql-ws then sends it as the subscription's error and ends the
 * subscription). Returns false for any other value.
 */
export function failSubscription(stream: unknown, err: Error): boolean {
  const fail = stream !== null && typeof stream === "object" ? failers.get(stream) : undefined;
  fail?.(err);
  return fail !== undefined;
}

/**
 * graphql-js's `subscribe`, except that subscribers with the same document and variables share one execution per
 * event instead of executing it once each: fan-out to many identical subscriptions costs one execution and N sends.
 * Sound because subscription results here depend only on the event and the document, not on who subscribed.
 *
 * The stream is a plain iterator, not an async generator: a generator waiting for the next event cannot act on
 * `return()` until an event comes, so a client that goes away on a quiet topic would stay subscribed (and hold its
 * memory) until then. Here `return()` ends the source at once, which also settles a pending `next()`.
 *
 * With a `sink`, a subscription to one of our pubsub's topics is pushed (see pushedSubscription): each result goes to
 * the sink as its event is published, and the stream returned yields nothing until the subscription ends. At most
 * `maxWaiting` results wait for an earlier one that is still being executed before the subscription is ended.
 */
export async function sharedSubscribe(
  args: ExecutionArgs,
  sink?: SubscriptionSink,
  maxWaiting = 1000,
): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult> {
  const stream = await createSourceEventStream(args);
  if (!(Symbol.asyncIterator in stream)) return stream as ExecutionResult;
  const source = stream as AsyncIterableIterator<unknown>;
  const resultFor = sharedResults(args);
  if (sink) {
    const behind = () => SubscriberTooSlowError.behind(maxWaiting, subscriptionTopic(args.document, args.operationName));
    const pushed = pushedSubscription(source, { resultFor, maxWaiting, behind }, sink);
    if (pushed) {
      failers.set(pushed.stream, pushed.fail);
      return pushed.stream;
    }
  }
  const end = async (): Promise<IteratorResult<ExecutionResult>> => {
    await source.return?.();
    return { value: undefined, done: true };
  };
  let failure: Error | null = null;
  const takeFailure = (): Error | null => {
    const err = failure;
    failure = null;
    return err;
  };
  // Promise chains rather than an async function: this runs once per event and subscription (10,000 subscriptions
  // make an event's fan-out), and each await of an async function allocates what the garbage collector then copies.
  const onEvent = (event: IteratorResult<unknown>): PromiseOrValue<IteratorResult<ExecutionResult>> => {
    // Failed while it waited: the source was let go, which ended the wait.
    const failed = takeFailure();
    if (failed) throw failed;
    if (event.done) return { value: undefined, done: true };
    const result = resultFor(event.value);
    return isPromise(result) ? result.then((value) => ({ value, done: false })) : { value: result, done: false };
  };
  const onSourceError = async (err: unknown): Promise<never> => {
    await source.return?.();
    throw err;
  };
  const iterator: AsyncIterableIterator<ExecutionResult> = {
    next() {
      const failed = takeFailure();
      if (failed) return Promise.reject(failed);
      return source.next().then(onEvent, onSourceError);
    },
    return: end,
    async throw(err: unknown) {
      await end();
      throw err;
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  failers.set(iterator, (err) => {
    failure = err;
    void source.return?.();
  });
  return iterator;
}
