import { ClientError, GraphQLClient } from "graphql-request";

export const DEFAULT_SERVER = "http://127.0.0.1:10180";

/** An error meant for the operator: printed as it is, without a stack. */
export class CliError extends Error {
  override readonly name = "CliError";
}

/** How a token travels: `Authorization: Bearer` over HTTP and, the same, in graphql-ws's `connection_init` payload. */
export function authorizationOf(token: string | null | undefined): { authorization: string } | undefined {
  return token ? { authorization: `Bearer ${token}` } : undefined;
}

/**
 * A GraphQL client of a kintsugi server, sending the token (`--token` / KINTSUGI_TOKEN) when there is one; errors
 * become CliErrors carrying the server's own message.
 */
export class KintsugiClient {
  private readonly client: GraphQLClient;
  readonly endpoint: string;
  /** The `connection_init` payload for this server's graphql-ws endpoint. */
  readonly connectionParams: { authorization: string } | undefined;

  constructor(server: string, token: string | null = null) {
    this.endpoint = `${server.replace(/\/+$/, "")}/graphql`;
    this.connectionParams = authorizationOf(token);
    this.client = new GraphQLClient(this.endpoint, { signal: AbortSignal.timeout(60_000), ...(this.connectionParams && { headers: this.connectionParams }) });
  }

  async request<T>(document: string, variables?: Record<string, unknown>): Promise<T> {
    try {
      return await this.client.request<T>(document, variables);
    } catch (err) {
      throw new CliError(describeError(err, this.endpoint));
    }
  }
}

/** What a graphql-ws client reports (an Error, a close event, a list of GraphQL errors) as one line. */
export function describeSocketError(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (Array.isArray(err)) return err.map((e: { message?: string }) => e.message ?? JSON.stringify(e)).join("; ");
  if (err && typeof err === "object" && "code" in err) return `closed with ${String(err.code)} ${"reason" in err ? String(err.reason) : ""}`.trim();
  return JSON.stringify(err);
}

function describeError(err: unknown, endpoint: string): string {
  if (err instanceof ClientError) {
    const errors = err.response.errors ?? [];
    if (errors.length > 0) {
      return errors
        .map((e) => {
          const type = (e.extensions as { type?: string } | undefined)?.type;
          return type ? `${e.message} (${type})` : e.message;
        })
        .join("\n");
    }
    return `${endpoint} answered HTTP ${err.response.status}`;
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const reason = cause?.code ?? cause?.message ?? (err as Error).message;
  return `cannot reach ${endpoint}: ${reason}`;
}
