import { ClientError, GraphQLClient } from "graphql-request";
import type WebSocket from "ws";
import { escapeControlCharacters as printable } from "../domain/shared/untrusted-text.js";
import { CliError } from "./cli-error.js";
import { fetchWithTls, webSocketWithTls, type ClientTls } from "../adapters/tls-transport.js";
import { certificateHint } from "./client-tls.js";

export { CliError } from "./cli-error.js";

export const DEFAULT_SERVER = "http://127.0.0.1:10180";

/** How a token travels: `Authorization: Bearer` over HTTP and, the same, in graphql-ws's `connection_init` payload. */
export function authorizationOf(token: string | null | undefined): { authorization: string } | undefined {
  return token ? { authorization: `Bearer ${token}` } : undefined;
}

/**
 * A GraphQL client of a kintsugi server, sending the token (`--token` / KINTSUGI_TOKEN) when there is one, verifying
 * an https server with `--ca` and presenting `--cert` when given; errors become CliErrors carrying the server's own
 * message.
 */
export class KintsugiClient {
  private readonly client: GraphQLClient;
  readonly endpoint: string;
  /** Whether a token is sent: a server that wants one is answered with the CLI's way to give it. */
  readonly hasToken: boolean;
  /** The `connection_init` payload for this server's graphql-ws endpoint. */
  readonly connectionParams: { authorization: string } | undefined;
  /** The WebSocket class for this server's graphql-ws endpoint (with the same CA and client certificate). */
  readonly webSocketImpl: typeof WebSocket;

  constructor(server: string, token: string | null = null, tls: ClientTls | null = null) {
    this.endpoint = `${server.replace(/\/+$/, "")}/graphql`;
    this.connectionParams = authorizationOf(token);
    this.hasToken = this.connectionParams !== undefined;
    this.webSocketImpl = webSocketWithTls(tls);
    this.client = new GraphQLClient(this.endpoint, {
      signal: AbortSignal.timeout(60_000),
      ...(this.connectionParams && { headers: this.connectionParams }),
      ...(tls && { fetch: fetchWithTls(tls) }),
    });
  }

  async request<T>(document: string, variables?: Record<string, unknown>): Promise<T> {
    try {
      return await this.client.request<T>(document, variables);
    } catch (err) {
      throw new CliError(describeError(err, this.endpoint, this.hasToken));
    }
  }
}

/**
 * The server's "needs a token" (HTTP 401 UNAUTHENTICATED, graphql-ws close 4401) in the CLI's words: the server tells
 * an API client to send `Authorization: Bearer`, while the CLI's way is KINTSUGI_TOKEN or `--token`. `certificates`:
 * the server also takes a client certificate.
 */
export function missingTokenMessage(certificates: boolean): string {
  const certificate = certificates ? ", or a client certificate (--cert FILE --key FILE) whose CN the server's auth.client_certificates maps to a role" : "";
  return `this server needs a token: set KINTSUGI_TOKEN=<token> in the environment (or give --token <token> before the command; arguments show in ps)${certificate}`;
}

const needsCertificate = (message: string): boolean => message.includes("client certificate");

/**
 * What a graphql-ws client reports (an Error, a close event, a list of GraphQL errors) as one line, with the
 * control characters of what the server sent escaped. `hasToken` false: a server refusing a client without a token
 * (close 4401) is answered with {@link missingTokenMessage}.
 */
export function describeSocketError(err: unknown, hasToken = true): string {
  if (!hasToken && err && typeof err === "object" && (err as { code?: unknown }).code === 4401) {
    return missingTokenMessage(needsCertificate(String((err as { reason?: unknown }).reason ?? "")));
  }
  return printable(describeSocketErrorAsSent(err));
}

function describeSocketErrorAsSent(err: unknown): string {
  if (err instanceof Error) return certificateHint((err as { code?: string }).code) ?? err.message;
  if (Array.isArray(err)) return err.map((e: { message?: string }) => e.message ?? JSON.stringify(e)).join("; ");
  if (err && typeof err === "object" && "code" in err) return `closed with ${String(err.code)} ${"reason" in err ? String(err.reason) : ""}`.trim();
  // ws reports a failed connection (a refused port, an untrusted certificate) as an ErrorEvent carrying the error.
  if (err && typeof err === "object" && "message" in err) {
    const cause = (err as { error?: { code?: string } }).error;
    return certificateHint(cause?.code) ?? String(err.message);
  }
  return JSON.stringify(err);
}

function describeError(err: unknown, endpoint: string, hasToken: boolean): string {
  if (err instanceof ClientError) {
    const errors = err.response.errors ?? [];
    if (errors.length > 0) {
      return errors
        .map((e) => {
          // The server's words reach the operator's terminal: they may carry what sabakan or etcd held.
          const type = (e.extensions as { type?: string } | undefined)?.type;
          if (type === "UNAUTHENTICATED" && !hasToken) return `${missingTokenMessage(needsCertificate(e.message))} (${type})`;
          return printable(type ? `${e.message} (${type})` : e.message);
        })
        .join("\n");
    }
    return `${endpoint} answered HTTP ${err.response.status}`;
  }
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  const reason = certificateHint(cause?.code, endpoint.startsWith("https:")) ?? cause?.code ?? cause?.message ?? (err as Error).message;
  return `cannot reach ${endpoint}: ${reason}`;
}
