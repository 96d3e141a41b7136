import { ClientError, GraphQLClient } from "graphql-request";

export const DEFAULT_SERVER = "http://127.0.0.1:10180";

/** An error meant for the operator: printed as it is, without a stack. */
export class CliError extends Error {
  override readonly name = "CliError";
}

/** A GraphQL client of a kintsugi server; errors become CliErrors carrying the server's own message. */
export class KintsugiClient {
  private readonly client: GraphQLClient;
  readonly endpoint: string;

  constructor(server: string) {
    this.endpoint = `${server.replace(/\/+$/, "")}/graphql`;
    this.client = new GraphQLClient(this.endpoint, { signal: AbortSignal.timeout(60_000) });
  }

  async request<T>(document: string, variables?: Record<string, unknown>): Promise<T> {
    try {
      return await this.client.request<T>(document, variables);
    } catch (err) {
      throw new CliError(describeError(err, this.endpoint));
    }
  }
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
