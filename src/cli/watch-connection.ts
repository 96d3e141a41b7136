import { createClient, type Client } from "graphql-ws";
import type WebSocket from "ws";
import { describeSocketError } from "./client.js";

export interface WatchConnectionOptions {
  /** The server's graphql-ws endpoint, ws(s)://host:port/graphql. */
  readonly url: string;
  readonly webSocketImpl: typeof WebSocket;
  readonly connectionParams: Record<string, unknown> | undefined;
  /** Up, the first time (`lostAt` null) or again after a loss (`lostAt`: when it was lost, epoch ms). */
  readonly onConnected: (lostAt: number | null) => void;
  /** An established connection went away (the server stopped or restarted, the network failed); retrying. */
  readonly onLost: (why: string) => void;
  /** Reconnection back-off: first wait, doubled up to `retryMaxMs`. Defaults 500 ms and 5 s: someone is watching. */
  readonly retryInitialMs?: number;
  readonly retryMaxMs?: number;
}

/** A graphql-ws client and how to let go of it. */
export interface WatchConnection {
  readonly client: Client;
  /** Stops retrying at once and closes the connection. */
  dispose(): Promise<void>;
}

/**
 * The watch's connection to the server. Once it has been up, a lost connection is retried for as long as the watch
 * runs (graphql-ws subscribes again by itself), and said so through `onLost` and `onConnected`; a first connection
 * that fails, or a server that refuses the client for good (close 4401, a bad certificate on the first try), ends
 * the subscriptions with the error instead, so that a wrong --server or token fails at once.
 */
export function watchConnection(options: WatchConnectionOptions): WatchConnection {
  const stopRetrying = new AbortController();
  let everConnected = false;
  let connected = false;
  let lostAt: number | null = null;
  let socketError: string | null = null;

  const retryWait = (retries: number) =>
    new Promise<void>((resolve) => {
      if (stopRetrying.signal.aborted) return resolve();
      const wake = () => {
        clearTimeout(timer);
        stopRetrying.signal.removeEventListener("abort", wake);
        resolve();
      };
      const timer = setTimeout(wake, Math.min((options.retryInitialMs ?? 500) * 2 ** retries, options.retryMaxMs ?? 5000));
      stopRetrying.signal.addEventListener("abort", wake);
    });

  const client = createClient({
    url: options.url,
    webSocketImpl: options.webSocketImpl,
    connectionParams: options.connectionParams,
    lazy: false,
    retryAttempts: Infinity,
    retryWait,
    // graphql-ws retries only close events by default; a server restarting refuses connections (an error event).
    shouldRetry: () => everConnected && !stopRetrying.signal.aborted,
    // The subscriptions' error handlers report a failure that is not retried; graphql-ws would also dump it to stderr.
    onNonLazyError: () => undefined,
    on: {
      error: (err) => void (socketError = describeSocketError(err)),
      connected: () => {
        everConnected = true;
        connected = true;
        const since = lostAt;
        lostAt = null;
        options.onConnected(since);
      },
      closed: (event) => {
        const why = socketError ?? describeSocketError(event);
        socketError = null;
        if (!connected || stopRetrying.signal.aborted) return;
        connected = false;
        lostAt = Date.now();
        options.onLost(why);
      },
    },
  });

  return {
    client,
    async dispose() {
      stopRetrying.abort();
      await client.dispose();
    },
  };
}
