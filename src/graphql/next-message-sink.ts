import type { ExecutionArgs, ExecutionResult } from "graphql";
import type { WebSocket } from "ws";
import { ENDED, type SubscriptionSink } from "./pushed-subscription.js";
import { nextMessageHead, payloadTail } from "./shared-payloads.js";
import { sendSplitMessage } from "./limits/websocket-writes.js";

/**
 * What runs as subscription `id` of `socket` is handed `result`, before it is sent (the work of graphql-ws's `onNext`
 * hook): the payload to send, or the error that ends the subscription instead.
 */
export type BeforeNext = (socket: WebSocket, id: string, args: ExecutionArgs, result: ExecutionResult) => object | Error;

/**
 * The sink of a pushed subscription (see pushedSubscription) on a graphql-ws connection: each result is checked by
 * `before` and written as the `next` message graphql-ws would write for subscription `id`, its payload's JSON the one
 * buffer every subscriber of the result shares. A connection that is closing ends the subscription at its next
 * event, as done (nothing can be written to it, so there is nobody to tell why, and an error would cost graphql-ws an
 * error and its message for each of thousands of subscriptions at once): graphql-ws lets a connection's
 * subscriptions go only once its socket has closed, and a connection closed for what its client did not read takes
 * seconds to (the close frame waits behind the unread bytes), while every event would still be handed to each of its
 * subscriptions.
 */
export function nextMessageSink(socket: WebSocket, id: string, args: ExecutionArgs, before: BeforeNext): SubscriptionSink {
  // The same bytes for every event of the subscription.
  const head = Buffer.from(nextMessageHead(id));
  return {
    next(result) {
      if (socket.readyState !== socket.OPEN) return ENDED;
      const payload = before(socket, id, args, result);
      if (payload instanceof Error) return payload;
      if (socket.readyState !== socket.OPEN) return ENDED;
      sendSplitMessage(socket, head, payloadTail(payload));
      return null;
    },
  };
}
