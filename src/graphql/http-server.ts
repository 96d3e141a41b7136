import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { TlsConfig } from "../config/tls-files.js";
import {
  ApolloServer,
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
  HeaderMap,
  type HTTPGraphQLRequest,
} from "./apollo-server.js";
import type { DocumentNode, ExecutionArgs, GraphQLSchema } from "graphql";
import { useServer } from "graphql-ws/use/ws";
import { WebSocketServer } from "../adapters/ws.js";
import { failSubscription, sharedSubscribe } from "./shared-subscribe.js";
import { nextMessageSink, type BeforeNext } from "./next-message-sink.js";
import type { SubscriptionSink } from "./pushed-subscription.js";
import { sharedPayloadReplacer } from "./shared-payloads.js";
import { SubscriptionDocuments } from "./subscription-documents.js";
import { OperationOrder } from "./operation-order.js";
import type { GraphQLContext } from "./context.js";
import { formatError, limitError } from "./errors.js";
import { DEFAULT_LIMITS, type Limits } from "../config/limits.js";
import { OperationLimits } from "./limits/operation-limits.js";
import { applyServerTimeouts, refuseOverLimit, TIMEOUT_CHECK_OPTIONS } from "./limits/http-limits.js";
import type { CostSizes } from "./limits/list-bounds.js";
import { eventSizeBound, responseSizePlugin } from "./limits/response-size.js";
import { AnswerBudget } from "./limits/answer-budget.js";
import { introspectionCachePlugin } from "./introspection-cache.js";
import { depthBoundWebSocket, limitConnections, subscriptionLimitError } from "./limits/websocket-limits.js";
import { slowReaderBounds, type ClosedReader } from "./limits/slow-readers.js";
import type { EdgeGuard } from "../auth/edge-guard.js";
import type { Actor, Role } from "../auth/roles.js";
import { admitHttp, roleCheckPlugin, sendRefusal, webSocketEdge } from "./edge/http-edge.js";
import { TurnQuota } from "../support/turn-quota.js";

/** The default bound on request bodies and WebSocket messages (limits.max_body_bytes). */
export const MAX_BODY_BYTES = DEFAULT_LIMITS.maxBodyBytes;

/**
 * The GraphQL operations, over HTTP and WebSocket together, that start in one turn of the event loop. An operator's add costs about 2 ms on an
 * idle machine (parsing, execution, its commit and fsync: 300 in 0.5 s) and several times that on a busy one, whose
 * disk makes each fsync wait: four a turn keep the turn short on both. A turn itself costs far less than an
 * operation, so a steady load loses little to the pacing.
 */
export const OPERATIONS_PER_TURN = 4;

export interface HttpServerOptions {
  readonly schema: GraphQLSchema;
  /** A fresh context per request (and per subscription), for the actor the edge guard admitted; an HTTP request's with its answer's budget. */
  readonly context: (actor: Actor, clientGone?: AbortSignal, answerBudget?: AnswerBudget) => GraphQLContext;
  /** Access control: Host/Origin rules, tokens, and the role of every root field. */
  readonly guard: EdgeGuard;
  /** The role each protected GET route needs (e.g. "/metrics": "viewer"); other routes are open. */
  readonly routeRoles?: Readonly<Record<string, Role>>;
  readonly version: string;
  /** Answers GET /health: 503 with the reason when not healthy (for example, the database cannot be written). */
  readonly healthCheck: () => { readonly healthy: boolean; readonly reason?: string; readonly details?: Readonly<Record<string, unknown>> };
  readonly logError: (err: unknown) => void;
  /** Told of each WebSocket connection closed for what its client left unread or the server holds queued for it. */
  readonly logClosedReader?: (closed: ClosedReader) => void;
  /** The events a subscription's client may leave unread before the subscription is ended, telling it so. */
  readonly subscriptionLag?: number;
  /** More GET endpoints, by exact path (e.g. "/metrics"): each answers with a content type and a body. */
  readonly routes?: Readonly<
    Record<string, () => Promise<{ contentType: string; body: string | Buffer; status?: number; headers?: Readonly<Record<string, string>> }>>
  >;
  /** What one client may make the server spend (the `limits` config section). */
  readonly limits: Limits;
  /** The sizes the cost estimate weighs lists by (the fleet sabakan answered); a fleet of none without. */
  readonly costSizes?: () => CostSizes;
  /** Serve HTTPS and WSS with this certificate and key; with a client CA, every client must present a certificate it signed. */
  readonly tls?: TlsConfig | null;
}

/**
 * Apollo Server on plain node:http (measured here several times faster than Express), serving POST/GET /graphql,
 * GET /health and GET /version as sabakan does. The landing page is off (it loads from a CDN, and data centers
 * are often offline) and so is cache control, a per-field plugin that costs list queries half their speed.
 */
export async function createHttpServer(
  options: HttpServerOptions,
): Promise<{ server: Server; apollo: ApolloServer<GraphQLContext>; closeSubscriptions: () => Promise<void> }> {
  const apollo = new ApolloServer<GraphQLContext>({
    schema: options.schema,
    formatError: formatError(options.logError),
    includeStacktraceInErrorResponses: false,
    // GraphiQL and the operators' tools read the schema; Apollo's default would switch it off with NODE_ENV=production.
    // Who may ask is the role check's business, as for every other field.
    introspection: true,
    // The serve command owns shutdown (close HTTP, then the database); Apollo's own handler would re-raise the signal.
    stopOnTerminationSignals: false,
    plugins: [
      ApolloServerPluginCacheControlDisabled(),
      ApolloServerPluginLandingPageDisabled(),
      roleCheckPlugin(options.guard),
      introspectionCachePlugin(),
      responseSizePlugin(options.limits.maxResponseBytes),
    ],
    // Every operation's text passes the limits before Apollo sees it; a stored hash would skip them.
    persistedQueries: false,
    parseOptions: { maxTokens: options.limits.maxTokens },
  });
  const operationLimits = new OperationLimits(options.schema, options.limits, options.costSizes);
  const eventTooLarge = eventSizeBound(options.limits.maxResponseBytes);
  await apollo.start();
  const operationTurns = new TurnQuota(OPERATIONS_PER_TURN);

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res, apollo, options, operationLimits, operationTurns).catch((err: unknown) => {
      options.logError(err);
      if (!res.headersSent) send(res, 500, "application/json", JSON.stringify({ error: "internal server error" }));
      else res.destroy();
    });
  };
  const server = options.tls ? httpsServer(options.tls, listener) : createServer(TIMEOUT_CHECK_OPTIONS, listener);
  applyServerTimeouts(server, options.limits);
  // Subscriptions: graphql-ws on the same server and path as queries; a message is bounded as a request body is.
  const edge = webSocketEdge(options.guard);
  const subscriptionLag = options.subscriptionLag ?? 1000;
  const slowReaders = slowReaderBounds({ ...options.limits, subscriptionLag }, options.logClosedReader ?? (() => undefined));
  // The bounds, then the result itself (shared by every subscriber of its execution, so that its JSON is made once).
  const beforeNext: BeforeNext = (socket, id, args, result) => slowReaders.onNext(socket, id, args) ?? eventTooLarge(result) ?? result;
  // Where each subscription's events are written, by the arguments onSubscribe made for it (graphql-ws hands the
  // same object to subscribe): its events go straight to its socket, not through graphql-ws's loop.
  const sinks = new WeakMap<ExecutionArgs, SubscriptionSink>();
  const wss = new WebSocketServer({
    server,
    path: "/graphql",
    maxPayload: options.limits.maxBodyBytes,
    verifyClient: edge.verifyClient,
    WebSocket: slowReaders.webSocket(depthBoundWebSocket(options.limits.maxVariableDepth)),
  });
  limitConnections(wss, options.limits.maxConnections, options.limits.maxConnectionsPerAddress);
  slowReaders.watch(wss);
  const documents = new SubscriptionDocuments(options.schema, operationLimits, options.limits.subscriptionCacheBytes);
  // A client that subscribed, then asked a query, reads a snapshot no event slips past (see OperationOrder).
  const order = new OperationOrder();
  const subscriptions = useServer(
    {
      schema: options.schema,
      onConnect: (ctx) => edge.onConnect(ctx),
      context: (ctx) => options.context(edge.actorOf(ctx), socketClosed(ctx.extra.socket)),
      subscribe: (args) => order.listening(args, sharedSubscribe(args, sinks.get(args), subscriptionLag)),
      jsonMessageReplacer: sharedPayloadReplacer,
      // One parsed, validated document per distinct query (the context is filled in by graphql-ws).
      onSubscribe: (ctx, id, payload) => {
        const tooMany = subscriptionLimitError(ctx.subscriptions, options.limits.maxSubscriptionsPerConnection);
        if (tooMany) return [tooMany];
        const document = documents.get(payload.query);
        if (Array.isArray(document)) return document;
        const forbidden = options.guard.forbidden(edge.actorOf(ctx), document as DocumentNode, payload.operationName);
        if (forbidden) return [forbidden];
        const tooCostly = operationLimits.cost(document as DocumentNode, {
          operationName: payload.operationName ?? undefined,
          variables: payload.variables ?? undefined,
        });
        if (tooCostly) return [tooCostly];
        const args: ExecutionArgs = {
          schema: options.schema,
          document: document as DocumentNode,
          operationName: payload.operationName,
          variableValues: payload.variables,
        };
        sinks.set(args, nextMessageSink(ctx.extra.socket, id, args, beforeNext));
        // Under the same quota as a request's: a burst of operations over one socket is read in one poll as well.
        const admitted = order.admit(ctx.extra.socket, args);
        return admitted instanceof Promise ? admitted.then((a) => operationTurns.turn().then(() => a)) : operationTurns.turn().then(() => admitted);
      },
      // Queries and mutations over WebSocket (and a subscription whose stream is not our pubsub's).
      onNext: (ctx, id, _payload, args, result) => {
        const payload = beforeNext(ctx.extra.socket, id, args, result);
        if (!(payload instanceof Error)) return payload;
        failSubscription(ctx.subscriptions[id], payload);
        return result;
      },
      onComplete: (ctx, id) => slowReaders.onComplete(ctx.extra.socket, id),
    },
    wss,
  );
  const closeSubscriptions = async () => {
    await subscriptions.dispose();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  };
  return { server, apollo, closeSubscriptions };
}

// An https.Server is an http.Server for everything kintsugi does with it (timeouts, upgrade, close); node's types
// keep them apart.
function httpsServer(tls: TlsConfig, listener: (req: IncomingMessage, res: ServerResponse) => void): Server {
  const clientCertificates = tls.clientCaPem === null ? {} : { ca: tls.clientCaPem, requestCert: true, rejectUnauthorized: true };
  return createHttpsServer({ cert: tls.certPem, key: tls.keyPem, ...clientCertificates, ...TIMEOUT_CHECK_OPTIONS }, listener) as unknown as Server;
}

async function handle(
  req: IncomingMessage,
  res: ServerResponse,
  apollo: ApolloServer<GraphQLContext>,
  options: HttpServerOptions,
  operationLimits: OperationLimits,
  operationTurns: TurnQuota,
): Promise<void> {
  const refused = options.guard.browserRefusal(req.headers.host, req.headers.origin);
  if (refused) return sendRefusal(res, refused);
  const preflight = req.method === "OPTIONS" && req.headers["access-control-request-method"] !== undefined;
  for (const [name, value] of Object.entries(options.guard.corsHeaders(req.headers.origin, preflight))) res.setHeader(name, value);
  if (preflight) {
    res.writeHead(res.hasHeader("access-control-allow-origin") ? 204 : 403);
    res.end();
    return;
  }
  const url = requestUrl(req);
  if (url === null)
    return send(
      res,
      400,
      "application/json",
      JSON.stringify({ errors: [{ message: "the request target is not a URL", extensions: { code: "BAD_REQUEST" } }] }),
    );
  if (url.pathname === "/health" && req.method === "GET") {
    let verdict;
    try {
      verdict = options.healthCheck();
    } catch (err) {
      options.logError(err);
      verdict = { healthy: false, reason: "the health check failed unexpectedly; details are in the server log" };
    }
    if (verdict.healthy) return send(res, 200, "application/json", JSON.stringify({ status: "ok", ...verdict.details }));
    return send(res, 503, "application/json", JSON.stringify({ status: "unhealthy", reason: verdict.reason, ...verdict.details }));
  }
  if (url.pathname === "/version" && req.method === "GET") {
    return send(res, 200, "application/json", JSON.stringify({ version: options.version }));
  }
  const route = req.method === "GET" ? options.routes?.[url.pathname] : undefined;
  if (route) {
    const role = options.routeRoles?.[url.pathname];
    const admitted = role ? admitHttp(options.guard, req, role) : null;
    if (admitted && !admitted.ok) return sendRefusal(res, admitted);
    const answer = await route();
    res.writeHead(answer.status ?? 200, { ...answer.headers, "content-type": answer.contentType });
    res.end(answer.body);
    return;
  }
  if (url.pathname !== "/graphql") return send(res, 404, "text/plain", "not found\n");
  const admitted = admitHttp(options.guard, req);
  if (!admitted.ok) return sendRefusal(res, admitted);

  const maxBytes = options.limits.maxBodyBytes;
  const bytes = await readBody(req, maxBytes);
  // The client reset the connection mid-upload: nobody is left to answer, and nothing went wrong here.
  if (bytes === ABORTED) return;
  if (bytes === null)
    return send(
      res,
      413,
      "application/json",
      JSON.stringify({
        errors: [limitError("LIMIT_EXCEEDED", "max_body_bytes", `request body larger than ${maxBytes} bytes (limits.max_body_bytes)`).toJSON()],
      }),
    );
  // The requests of a burst, read in one poll of the sockets (an operator's 300 adds at once), start a few a turn:
  // parsed, executed and committed in one go, they held /health and every other client for the whole burst.
  await operationTurns.turn();
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(key, Array.isArray(value) ? value.join(", ") : value);
  }
  const json = req.method === "POST" && (headers.get("content-type") ?? "").startsWith("application/json");
  // Read before it is decoded and parsed: a value nested too deep costs the reading of its bytes only.
  const tooDeep = json ? operationLimits.depth(bytes, 1) : null;
  if (tooDeep) return send(res, 400, "application/json", JSON.stringify({ errors: [tooDeep.toJSON()] }));
  const body = bytes.toString("utf8");
  let parsed: unknown = body;
  if (json) {
    try {
      parsed = body === "" ? undefined : JSON.parse(body);
    } catch {
      return send(
        res,
        400,
        "application/json",
        JSON.stringify({ errors: [{ message: "request body is not valid JSON", extensions: { code: "BAD_REQUEST" } }] }),
      );
    }
  }
  if (refuseOverLimit(req, res, url, parsed, operationLimits)) return;
  const request: HTTPGraphQLRequest = { method: req.method ?? "GET", headers, search: url.search, body: parsed };
  // Work a client sized (a replay) stops when its client goes: nobody is left to answer.
  const clientGone = new AbortController();
  res.once("close", () => {
    if (!res.writableFinished) clientGone.abort();
  });
  const response = await apollo.executeHTTPGraphQLRequest({
    httpGraphQLRequest: request,
    context: async () => options.context(admitted.actor, clientGone.signal, new AnswerBudget(options.limits.maxResponseBytes)),
  });
  for (const [key, value] of response.headers) res.setHeader(key, value);
  res.statusCode = response.status ?? 200;
  if (response.body.kind === "complete") {
    res.end(response.body.string);
    return;
  }
  for await (const chunk of response.body.asyncIterator) res.write(chunk);
  res.end();
}

/** The request's URL; null for a target that node:http passes on but is no URL (such as "http://["). */
function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? "/", "http://kintsugi");
  } catch {
    return null;
  }
}

const closedSockets = new WeakMap<object, AbortSignal>();

/** Aborted when the WebSocket closes: work its operations sized (a replay) stops, as for an HTTP client that goes. */
function socketClosed(socket: { once(event: "close", listener: () => void): unknown }): AbortSignal {
  let signal = closedSockets.get(socket);
  if (!signal) {
    const closed = new AbortController();
    socket.once("close", () => closed.abort());
    signal = closed.signal;
    closedSockets.set(socket, signal);
  }
  return signal;
}

const ABORTED = Symbol("aborted");

/** The request body; null past `maxBytes`; ABORTED when the client went away before sending all of it. */
function readBody(req: IncomingMessage, maxBytes: number): Promise<Buffer | null | typeof ABORTED> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        req.removeAllListeners("data");
        req.resume();
        resolve(null);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", () => resolve(ABORTED));
    req.on("close", () => {
      if (!req.complete) resolve(ABORTED);
    });
  });
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": `${type}; charset=utf-8` });
  res.end(body);
}
