import { request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import type WebSocket from "ws";
import { escapeControlCharacters as printable } from "../domain/shared/untrusted-text.js";
import { CliError } from "./cli-error.js";
import type { ClientTls } from "../adapters/tls-transport.js";
import { certificateHint } from "./client-tls.js";

export { CliError } from "./cli-error.js";

export const DEFAULT_SERVER = "http://127.0.0.1:10180";

/** How long one request may take, answer included. */
const REQUEST_TIMEOUT_MS = 60_000;

/** How a token travels: `Authorization: Bearer` over HTTP and, the same, in graphql-ws's `connection_init` payload. */
export function authorizationOf(token: string | null | undefined): { authorization: string } | undefined {
  return token ? { authorization: `Bearer ${token}` } : undefined;
}

/** An error as a GraphQL server reports it. */
interface ReportedError {
  readonly message?: unknown;
  readonly extensions?: { readonly type?: unknown };
}

/**
 * The name of the one operation of a document (the CLI's documents: one operation, then its fragments), sent as
 * `operationName` as GraphQL clients do; undefined for an anonymous one.
 */
export function operationNameOf(document: string): string | undefined {
  return /^\s*(?:#[^\n]*\n\s*)*(?:query|mutation|subscription)\s+([_A-Za-z][_0-9A-Za-z]*)/.exec(document)?.[1];
}

/** POSTs `body` to `url` with node's http or https (with `tls`); the answer's status and text. */
async function post(url: URL, headers: Record<string, string>, body: string, tls: ClientTls | null): Promise<{ status: number; text: string }> {
  // https (and with it tls and crypto) loads only for an https server.
  const send = url.protocol === "https:" ? (await import("node:https")).request : httpRequest;
  const options: RequestOptions = {
    method: "POST",
    headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    ...tls,
  };
  return new Promise((resolve, reject) => {
    const req = send(url, options, (res: IncomingMessage) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A GraphQL client of a kintsugi server (POST /graphql with JSON, the GraphQL-over-HTTP way), sending the token
 * (`--token` / KINTSUGI_TOKEN) when there is one, verifying an https server with `--ca` and presenting `--cert` when
 * given; errors become CliErrors carrying the server's own message. node's http rather than fetch or a GraphQL
 * client library: the documents are strings the server parses, and loading fetch alone costs a command about twice
 * node's own start in CPU (bench:cli).
 */
export class KintsugiClient {
  readonly endpoint: string;
  /** Whether a token is sent: a server that wants one is answered with the CLI's way to give it. */
  readonly hasToken: boolean;
  /** The `connection_init` payload for this server's graphql-ws endpoint. */
  readonly connectionParams: { authorization: string } | undefined;

  constructor(
    server: string,
    token: string | null = null,
    private readonly tls: ClientTls | null = null,
  ) {
    this.endpoint = `${server.replace(/\/+$/, "")}/graphql`;
    this.connectionParams = authorizationOf(token);
    this.hasToken = this.connectionParams !== undefined;
  }

  /** The WebSocket class for this server's graphql-ws endpoint (with the same CA and client certificate), loaded when a command subscribes. */
  async webSocketImpl(): Promise<typeof WebSocket> {
    const { webSocketWithTls } = await import("../adapters/tls-websocket.js");
    return webSocketWithTls(this.tls);
  }

  async request<T>(document: string, variables?: Record<string, unknown>): Promise<T> {
    let answer: { status: number; text: string };
    try {
      const headers = { "content-type": "application/json", accept: "application/graphql-response+json, application/json", ...this.connectionParams };
      answer = await post(new URL(this.endpoint), headers, JSON.stringify({ query: document, variables, operationName: operationNameOf(document) }), this.tls);
    } catch (err) {
      throw new CliError(unreachable(err, this.endpoint));
    }
    const { status, text } = answer;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const result = typeof body === "object" && body !== null && !Array.isArray(body) ? (body as { data?: unknown; errors?: unknown }) : null;
    const errors = Array.isArray(result?.errors) ? (result.errors as ReportedError[]) : [];
    if (errors.length > 0) throw new CliError(errors.map((e) => errorLine(e, this.hasToken)).join("\n"));
    if (status < 200 || status > 299 || result === null || typeof result.data !== "object" || result.data === null)
      throw new CliError(`${this.endpoint} answered HTTP ${status}`);
    return result.data as T;
  }
}

/**
 * One error of the server's answer as a line: the server's words reach the operator's terminal, and may carry what
 * sabakan or etcd held. Without a token, the server's "needs a token" is told in the CLI's words.
 */
function errorLine(e: ReportedError, hasToken: boolean): string {
  const message = typeof e.message === "string" ? e.message : JSON.stringify(e);
  const type = e.extensions?.type;
  if (type === "UNAUTHENTICATED" && !hasToken) return `${missingTokenMessage(needsCertificate(message))} (${type})`;
  return printable(typeof type === "string" && type !== "" ? `${message} (${type})` : message);
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

/** Why a request got no answer (refused, timed out, TLS refused), naming the server. */
function unreachable(err: unknown, endpoint: string): string {
  const { code, name, message } = err as { code?: string; name?: string; message?: string };
  if (name === "AbortError" || name === "TimeoutError") return `cannot reach ${endpoint}: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  return `cannot reach ${endpoint}: ${certificateHint(code, endpoint.startsWith("https:")) ?? code ?? message ?? String(err)}`;
}
