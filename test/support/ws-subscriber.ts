import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";

/** A graphql-ws subscriber that collects what it receives. */
export interface Subscriber<T> {
  readonly received: T[];
  readonly errors: unknown[];
  /** Resolves once the server acknowledged the subscription (the first `next` may come any time after). */
  readonly ready: Promise<void>;
  waitFor(count: number, timeoutMs?: number): Promise<T[]>;
  close(): Promise<void>;
}

/** Subscribes over a real WebSocket (Node 20 has no global WebSocket: `ws` is given to graphql-ws). */
export function subscribe<T>(httpUrl: string, query: string): Subscriber<T> {
  let acked: () => void = () => {};
  const ready = new Promise<void>((resolve) => (acked = resolve));
  const client: Client = createClient({ url: `${httpUrl.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0, on: { connected: () => acked() } });
  const received: T[] = [];
  const errors: unknown[] = [];
  client.subscribe<T>({ query }, { next: (value) => void received.push(value.data as T), error: (err) => void errors.push(err), complete: () => undefined });
  return {
    received,
    errors,
    ready,
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`received ${received.length} of ${count} events; errors: ${JSON.stringify(errors)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return received;
    },
    async close() {
      await client.dispose();
    },
  };
}
