import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { GraphQLError } from "graphql";
import type { Limits } from "../../config/limits.js";
import type { OperationLimits, OperationRequest } from "./operation-limits.js";

/**
 * node:http's own bounds on a slow client: its headers and its whole request must arrive in time, and a socket on
 * which nothing moves for the idle time (a client that stopped reading its answer included) is destroyed. Upgraded
 * WebSockets are not affected; they have graphql-ws's keep-alive and the buffered-bytes bound.
 */
/**
 * Server options the timeouts need: node checks headersTimeout and requestTimeout only every
 * `connectionsCheckingInterval` (30 s by default), which would let a slow client hold a connection 30 s past them.
 */
export const TIMEOUT_CHECK_OPTIONS = { connectionsCheckingInterval: 1000 } as const;

export function applyServerTimeouts(server: Server, limits: Limits): void {
  server.headersTimeout = limits.headersTimeoutSeconds * 1000;
  server.requestTimeout = limits.requestTimeoutSeconds * 1000;
  server.timeout = limits.idleTimeoutSeconds * 1000;
}

/** The operation in an HTTP GraphQL request (JSON body or GET query string), or null when there is none to check. */
export function operationOf(method: string | undefined, search: URLSearchParams, body: unknown): OperationRequest | null {
  if (method === "GET") {
    const query = search.get("query");
    if (query === null) return null;
    let variables: unknown;
    try {
      variables = JSON.parse(search.get("variables") ?? "null");
    } catch {
      variables = undefined;
    }
    return { query, operationName: search.get("operationName") ?? undefined, variables: isRecord(variables) ? variables : undefined };
  }
  if (!isRecord(body) || typeof body["query"] !== "string") return null;
  const name = body["operationName"];
  const variables = body["variables"];
  return { query: body["query"], operationName: typeof name === "string" ? name : undefined, variables: isRecord(variables) ? variables : undefined };
}

/**
 * Answers a request whose operation passes a limit with a GraphQL error response (400, as Apollo answers a
 * document that fails validation) and returns true; returns false when the request may go on to Apollo.
 */
export function refuseOverLimit(req: IncomingMessage, res: ServerResponse, url: URL, body: unknown, limits: OperationLimits): boolean {
  // A GET request's JSON parameters before anything parses them (a POST body's text is checked as it is read).
  const tooDeep = req.method === "GET" ? parametersTooDeep(url.searchParams, limits) : null;
  const operation = tooDeep ? null : operationOf(req.method, url.searchParams, body);
  const errors = tooDeep ? [tooDeep] : operation && limits.admit(operation);
  if (!errors) return false;
  res.writeHead(400, { "content-type": "application/json; charset=utf-8" });
  res.end(JSON.stringify({ errors: errors.map((e) => e.toJSON()) }));
  return true;
}

/** The refusal of a GET request whose `variables` or `extensions` nest a value too deep, or null. */
function parametersTooDeep(search: URLSearchParams, limits: OperationLimits): GraphQLError | null {
  for (const name of ["variables", "extensions"]) {
    const text = search.get(name);
    const error = text === null ? null : limits.depth(text, 0);
    if (error) return error;
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
