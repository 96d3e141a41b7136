import type { ExecutionResult } from "graphql";
import { PacedDelivery, type Recipient } from "./paced-delivery.js";

/** What a result that waited came to. */
export type Settled =
  | { readonly promise: Promise<ExecutionResult>; readonly ok: true; readonly value: ExecutionResult }
  | { readonly promise: Promise<ExecutionResult>; readonly ok: false; readonly err: Error };

// The subscriptions waiting for each result that is still a promise. A result is shared by every subscription of its
// execution, and the thousands handed an event before it settles wait on it together: one reaction to the promise
// tells them all, not a promise, a reaction and two closures each.
const waiters = new WeakMap<Promise<ExecutionResult>, Array<Recipient<Settled>>>();

// Told as an event is handed on (see PacedDelivery): a turn of the fan-out hands an event to thousands of
// subscriptions before its result settles, and their sends, all at once as it settled, held the event loop as long again.
const telling = new PacedDelivery<Settled>();

/**
 * Who is to be told once `promise` settles, in the order they asked (push onto it), a share at a time per turn of the
 * event loop; its one reaction is attached with the first ask, which also keeps a rejection from going unhandled
 * while the subscriptions wait on earlier results.
 */
export function settlement(promise: Promise<ExecutionResult>): Array<Recipient<Settled>> {
  let waiting = waiters.get(promise);
  if (!waiting) {
    const told: Array<Recipient<Settled>> = [];
    waiters.set(promise, told);
    const tell = (settled: Settled) => {
      // Whoever asks from now on is told through a reaction of its own (the promise has settled).
      waiters.delete(promise);
      telling.deliver(told, settled);
    };
    promise.then(
      (value) => tell({ promise, ok: true, value }),
      (err: unknown) => tell({ promise, ok: false, err: err instanceof Error ? err : new Error(String(err)) }),
    );
    waiting = told;
  }
  return waiting;
}
