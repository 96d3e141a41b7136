// Talks to this origin's /graphql only: a query over HTTP, subscriptions over graphql-ws (ws or wss, same host),
// both with the API token GraphiQL stored in this origin's localStorage (the same key), when there is one.
import { createClient, type Client } from "graphql-ws";

const TOKEN_KEY = "kintsugi.token";

function token(): string | null {
  try {
    return localStorage.getItem(TOKEN_KEY) || null;
  } catch {
    return null;
  }
}

/** Why a request failed, in words for the page; `auth` when kintsugi refused who asked (a token would help). */
export class RequestError extends Error {
  constructor(
    message: string,
    readonly auth = false,
  ) {
    super(message);
  }
}

/** The refusals a token may cure, as kintsugi's edge and role check name them (`extensions.code`/`type`). */
const AUTH_CODES = new Set(["UNAUTHENTICATED", "FORBIDDEN"]);
/** graphql-ws closes a refused connection with these (kintsugi's edge: 4401 no or unknown token, 4403 refused). */
const AUTH_CLOSE_CODES = new Set([4401, 4403]);

function isAuthError(e: { extensions?: { code?: unknown; type?: unknown } }): boolean {
  return AUTH_CODES.has(String(e.extensions?.code)) || AUTH_CODES.has(String(e.extensions?.type));
}

/** Runs a query over HTTP; the data, or a RequestError with the server's messages. */
export async function query<T>(document: string, variables: Record<string, unknown> = {}): Promise<T> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const bearer = token();
  if (bearer !== null) headers.authorization = `Bearer ${bearer}`;
  const res = await fetch(new URL("graphql", location.origin + "/"), { method: "POST", headers, body: JSON.stringify({ query: document, variables }) });
  const auth = res.status === 401 || res.status === 403;
  let body: { data?: T | null; errors?: Array<{ message?: unknown; extensions?: { code?: unknown; type?: unknown } }> };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    throw new RequestError(`kintsugi answered HTTP ${res.status} without JSON`, auth);
  }
  const errors = Array.isArray(body.errors) ? body.errors : [];
  const messages = errors.map((e) => String(e.message));
  if (messages.length > 0 || !body.data)
    throw new RequestError(messages.join("; ") || `kintsugi answered HTTP ${res.status} without data`, auth || errors.some(isAuthError));
  return body.data;
}

export interface LiveHandlers {
  /** The socket is (re)connected: subscriptions are being sent again, the snapshot must be read again once they listen. */
  onConnected(): void;
  onDisconnected(reason: string): void;
}

/** A graphql-ws client that reconnects for ever (backing off), carrying the token in connection_init. */
export function liveClient(handlers: LiveHandlers): Client {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/graphql";
  const client = createClient({
    url,
    lazy: false,
    retryAttempts: Number.MAX_SAFE_INTEGER,
    shouldRetry: () => true,
    retryWait: async (retries) => new Promise((resolve) => setTimeout(resolve, Math.min(10_000, 500 * 2 ** Math.min(retries, 5)))),
    connectionParams: () => {
      const bearer = token();
      return bearer === null ? {} : { authorization: `Bearer ${bearer}` };
    },
  });
  client.on("connected", () => handlers.onConnected());
  client.on("closed", (event) => {
    const reason = (event as { reason?: unknown }).reason;
    handlers.onDisconnected(typeof reason === "string" && reason !== "" ? reason : "connection closed");
  });
  return client;
}

/** Subscribes for ever; each payload's data goes to `next`, errors to `error` (the client retries the socket). */
export function subscribe<T>(client: Client, document: string, next: (data: T) => void, error: (failure: RequestError) => void): void {
  client.subscribe<T>(
    { query: document },
    {
      next: (result) => {
        if (result.errors && result.errors.length > 0) error(describeError(result.errors));
        else if (result.data) next(result.data as T);
      },
      error: (err) => error(describeError(err)),
      complete: () => undefined,
    },
  );
}

/** What ended a subscription: GraphQL errors, a close event (code and reason), or an exception. */
function describeError(err: unknown): RequestError {
  if (Array.isArray(err)) return new RequestError(err.map((e: { message?: unknown }) => String(e.message)).join("; "), err.some(isAuthError));
  if (typeof err === "object" && err !== null && "code" in err && typeof (err as CloseEvent).code === "number") {
    const { code, reason } = err as CloseEvent;
    return new RequestError(`the WebSocket closed (${code}${reason ? `: ${reason}` : ""})`, AUTH_CLOSE_CODES.has(code));
  }
  return new RequestError(err instanceof Error ? err.message : String(err));
}
