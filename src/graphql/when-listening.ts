import type { Client } from "graphql-ws";

/** Sent over the socket after a client's subscriptions: kintsugi answers it once they all listen. */
export const LISTENING_QUERY = "query Listening { __typename }";

/**
 * The client's half of OperationOrder: calls `then` once kintsugi's answer to a query sent after this client's
 * subscriptions shows that they all listen (kintsugi starts a connection's operations in the order they were sent),
 * or once asking failed (the socket closed: the next connection asks again). A snapshot read after `then` misses no
 * event. Call it from the client's `connected` event: the subscriptions graphql-ws sends again at a reconnection go out
 * before this query. Returns what cancels it; `then` is not called after that.
 */
export function whenListening(client: Pick<Client, "subscribe">, then: () => void): () => void {
  let settled = false;
  const once = (): void => {
    if (settled) return;
    settled = true;
    then();
  };
  const cancel = client.subscribe({ query: LISTENING_QUERY }, { next: () => undefined, error: once, complete: once });
  return () => {
    settled = true;
    cancel();
  };
}
