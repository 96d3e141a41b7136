import { Kind, parse, type OperationDefinitionNode } from "graphql";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { until } from "./until.js";

/** A graphql-ws subscriber that collects what it receives. */
export interface Subscriber<T> {
  readonly received: T[];
  readonly errors: unknown[];
  /**
   * Resolves once the server has registered the subscription, so an event published after it reaches it.
   * graphql-ws has no subscribe acknowledgement: the signal is the server's `kintsugi_subscriptions{topic}` gauge
   * counting at least every subscriber this helper holds open on that server and topic (see `subscriptionCount`).
   */
  readonly ready: Promise<void>;
  waitFor(count: number, timeoutMs?: number): Promise<T[]>;
  /** Disposes of the client and waits until the server no longer counts the subscription (or is gone). */
  close(): Promise<void>;
}

/** The subscribers this helper holds open, by server URL and topic (their ready and close count on these). */
const open = new Map<string, Set<object>>();
const keyOf = (httpUrl: string, topic: string) => `${httpUrl} ${topic}`;

/** The server's open subscriptions on `topic`, from its /metrics; null when the server does not answer. */
export async function subscriptionCount(httpUrl: string, topic: string): Promise<number | null> {
  let text: string;
  try {
    text = await (await fetch(`${httpUrl}/metrics`)).text();
  } catch {
    return null;
  }
  const line = text.split("\n").find((l) => l.startsWith(`kintsugi_subscriptions{topic="${topic}"} `));
  if (line === undefined) throw new Error(`/metrics of ${httpUrl} has no kintsugi_subscriptions sample for ${topic}`);
  return Number(line.slice(line.lastIndexOf(" ") + 1));
}

async function pollCount(httpUrl: string, topic: string, what: string, done: (count: number | null) => boolean): Promise<void> {
  await until(`${what} (the server's count of subscriptions on ${topic})`, () => subscriptionCount(httpUrl, topic), done);
}

/** The topic a subscription document subscribes to: its root field. */
function topicOf(query: string): string {
  const operation = parse(query).definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  const field = operation?.selectionSet.selections[0];
  if (!field || field.kind !== Kind.FIELD) throw new Error(`not a subscription with a root field: ${query}`);
  return field.name.value;
}

/** Subscribes over a real WebSocket (Node 20 has no global WebSocket: `ws` is given to graphql-ws). */
export function subscribe<T>(httpUrl: string, query: string): Subscriber<T> {
  const topic = topicOf(query);
  const mine = open.get(keyOf(httpUrl, topic)) ?? new Set<object>();
  open.set(keyOf(httpUrl, topic), mine);
  const self = {};
  mine.add(self);
  // An errored or completed subscription is not (or no longer) counted by the server.
  const ended = () => void mine.delete(self);
  const client: Client = createClient({ url: `${httpUrl.replace(/^http/, "ws")}/graphql`, webSocketImpl: WebSocket, retryAttempts: 0 });
  const received: T[] = [];
  const errors: unknown[] = [];
  client.subscribe<T>(
    { query },
    {
      next: (value) => void received.push(value.data as T),
      error: (err) => {
        errors.push(err);
        ended();
      },
      complete: ended,
    },
  );
  const ready = pollCount(httpUrl, topic, "the subscription is registered", (count) => {
    if (!mine.has(self)) throw new Error(`subscription ended before it was registered: ${JSON.stringify(errors)}`);
    return count !== null && count >= mine.size;
  });
  // Callers that never await ready must not see an unhandled rejection from it.
  ready.catch(() => undefined);
  return {
    received,
    errors,
    ready,
    async waitFor(count, timeoutMs = 20_000) {
      await until(
        `${count} events are received`,
        () => received.length,
        (n) => n >= count,
        timeoutMs,
        () => `errors: ${JSON.stringify(errors)}`,
      );
      return received;
    },
    async close() {
      const wasOpen = mine.delete(self);
      await client.dispose();
      if (wasOpen) await pollCount(httpUrl, topic, "the subscription is unregistered", (count) => count === null || count <= mine.size);
    },
  };
}
