import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";

/** What one operation over graphql-ws came to: its results, or the error the server sent (or the close event). */
export interface WsOutcome {
  readonly results: ReadonlyArray<{ data?: unknown; errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> }>;
  readonly error: unknown;
}

/** A graphql-ws connection (one socket, no retries) that runs operations and reports how the socket closed. */
export interface WsConnection {
  /** Runs a query or mutation to its end; a subscription until `until` resolves (then it is unsubscribed). */
  run(query: string, until?: Promise<unknown>): Promise<WsOutcome>;
  /** The close event's code and reason, once the socket closed. */
  readonly closed: Promise<{ code: number; reason: string }>;
  dispose(): Promise<void>;
}

/** Connects to `${httpUrl}/graphql` over WebSocket with `connectionParams` as the `connection_init` payload. */
export function wsConnection(httpUrl: string, connectionParams?: Record<string, unknown>, headers?: Record<string, string>): WsConnection {
  let onClosed: (event: { code: number; reason: string }) => void = () => undefined;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  class HeaderWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  const client: Client = createClient({
    url: `${httpUrl.replace(/^http/, "ws")}/graphql`,
    webSocketImpl: headers ? HeaderWebSocket : WebSocket,
    retryAttempts: 0,
    lazy: false,
    ...(connectionParams && { connectionParams }),
    onNonLazyError: () => undefined,
    on: { closed: (event) => onClosed({ code: (event as { code: number }).code, reason: String((event as { reason: unknown }).reason) }) },
  });
  return {
    closed,
    run(query, until) {
      return new Promise((resolve) => {
        const results: Array<WsOutcome["results"][number]> = [];
        const unsubscribe = client.subscribe(
          { query },
          {
            next: (value) => void results.push(value as WsOutcome["results"][number]),
            error: (error) => resolve({ results, error }),
            complete: () => resolve({ results, error: null }),
          },
        );
        void until?.then(() => {
          unsubscribe();
          resolve({ results, error: null });
        });
      });
    },
    async dispose() {
      await client.dispose();
    },
  };
}
