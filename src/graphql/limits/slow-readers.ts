import type { ExecutionArgs } from "graphql";
import type { WebSocket, WebSocketServer } from "ws";
import { SubscriberTooSlowError } from "../pubsub.js";
import { subscriptionTopic, UnreadEvents } from "./subscription-lag.js";
import { capTotalBuffered } from "./total-buffered-bytes.js";
import { closeSlowReader, meterUnreadBytes, type UnreadBytes } from "./websocket-limits.js";
import { queuedBytes, queuedSendWebSocket } from "./websocket-writes.js";

/** A WebSocket connection closed for what it holds: the limit that closed it and the bytes it counted. */
export type ClosedReader =
  | { readonly limit: "max_buffered_bytes"; readonly unreadBytes: number }
  | { readonly limit: "max_total_buffered_bytes"; readonly queuedBytes: number; readonly totalQueuedBytes: number };

export interface SlowReaderLimits {
  /** limits.max_buffered_bytes: what one connection's client may leave unread. */
  readonly maxBufferedBytes: number;
  /** limits.max_total_buffered_bytes: what all connections together may hold queued in the process. */
  readonly maxTotalBufferedBytes: number;
  /** The events a subscription's client may leave unread before the subscription is ended, telling it so. */
  readonly subscriptionLag: number;
}

/**
 * The bounds on clients that stop reading their subscriptions, in the order they act: the lag rule ends a
 * subscription whose client left `subscriptionLag` of its events unread with a message saying so (sent once the
 * client reads again; the connection stays); max_buffered_bytes closes a connection whose events are large enough
 * that their bytes pass it first; max_total_buffered_bytes closes the connections holding the most once all of them
 * together hold more. `webSocket` makes the server's connection class (sends done once queued, so that every event
 * reaches these checks), `watch` meters a server's connections, `onNext` runs as an event is handed to a
 * subscription (before it is sent), `onComplete` as it ends.
 */
export function slowReaderBounds(limits: SlowReaderLimits, log: (closed: ClosedReader) => void) {
  let clients: () => Iterable<WebSocket> = () => [];
  let readers: (socket: object) => UnreadBytes | undefined = () => undefined;
  const lags = new WeakMap<object, UnreadEvents>();
  // One lag error per topic, for every subscription it ends: thousands may fall behind at once (a client that stops
  // reading many small subscriptions), and each error of their own cost a stack trace that graphql-ws then formats.
  const behind = new Map<string, Error>();
  const capTotal = capTotalBuffered(
    () => clients(),
    limits.maxTotalBufferedBytes,
    (queued, totalQueuedBytes) => log({ limit: "max_total_buffered_bytes", queuedBytes: queued, totalQueuedBytes }),
  );
  return {
    webSocket: (Base: typeof WebSocket): typeof WebSocket => queuedSendWebSocket(Base, capTotal),
    watch(wss: WebSocketServer): void {
      clients = () => wss.clients;
      readers = meterUnreadBytes(wss);
    },
    /**
     * Checks the bounds as subscription `id` of `socket` is handed an event, before it is sent: closes a connection
     * past max_buffered_bytes; returns the lag error that is to end the subscription (null: send the event).
     */
    onNext(socket: WebSocket, id: string, args: Pick<ExecutionArgs, "document" | "operationName">): Error | null {
      const unread = readers(socket);
      if (!unread) return null;
      unread.probe();
      const unreadBytes = unread.count;
      if (closeSlowReader(socket, unreadBytes, limits.maxBufferedBytes)) {
        log({ limit: "max_buffered_bytes", unreadBytes });
        return null;
      }
      let lag = lags.get(socket);
      if (!lag) {
        lag = new UnreadEvents(limits.subscriptionLag);
        lags.set(socket, lag);
      }
      if (lag.admit(id, queuedBytes(socket), unread.acknowledgedBytes)) return null;
      const topic = subscriptionTopic(args.document, args.operationName);
      let err = behind.get(topic);
      if (!err) {
        err = SubscriberTooSlowError.behind(limits.subscriptionLag, topic);
        behind.set(topic, err);
      }
      return err;
    },
    onComplete(socket: WebSocket, id: string): void {
      lags.get(socket)?.forget(id);
    },
  };
}
