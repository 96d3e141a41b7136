/**
 * What one client may make kintsugi spend (the `limits` config section). Each bound answers with an error that
 * names its config key, so an operator who meets one knows what to raise.
 */
export interface Limits {
  /** Deepest field nesting of an operation (fragments inlined). */
  readonly maxDepth: number;
  /** Aliased fields per operation, counted through every fragment spread. */
  readonly maxAliases: number;
  /** Directives per operation, counted through every fragment spread. */
  readonly maxDirectives: number;
  /** Lexical tokens per document: parsing stops at the first one past this. */
  readonly maxTokens: number;
  /** Estimated cost of an operation (see operation-cost.ts: lists multiply, sabakan fetches weigh). */
  readonly maxCost: number;
  /** Largest HTTP request body and WebSocket message. */
  readonly maxBodyBytes: number;
  /** Open WebSocket connections at once. */
  readonly maxConnections: number;
  /** Open WebSocket connections at once from one client address (a proxy in front of kintsugi is one address). */
  readonly maxConnectionsPerAddress: number;
  readonly maxSubscriptionsPerConnection: number;
  /** Memory the subscription-document cache may keep, estimated from the documents' tokens (see SubscriptionDocuments). */
  readonly subscriptionCacheBytes: number;
  /** Time a client has to send a request's headers. */
  readonly headersTimeoutSeconds: number;
  /** Time a client has to send a whole request. */
  readonly requestTimeoutSeconds: number;
  /** An HTTP connection on which nothing moves (no bytes read or written) for this long is closed. */
  readonly idleTimeoutSeconds: number;
  /** A WebSocket whose unsent data passes this is closed: its client stopped reading. */
  readonly maxBufferedBytes: number;
  /** Time one replay (simulateAutoRepair) may take in its worker thread; one runs at a time. */
  readonly replaySeconds: number;
}

/**
 * Defaults: above what kintsugi's CLI, the alert bridge and GraphiQL send, far below what takes the server down.
 * GraphiQL's introspection query is the largest: 15 fields deep and an estimated cost of at most 53,411 (every
 * introspection option on); the CLI's costliest document is about 1,500.
 */
export const DEFAULT_LIMITS: Limits = {
  maxDepth: 20,
  maxAliases: 30,
  maxDirectives: 50,
  maxTokens: 5_000,
  maxCost: 100_000,
  maxBodyBytes: 1024 * 1024,
  maxConnections: 1_000,
  maxConnectionsPerAddress: 100,
  maxSubscriptionsPerConnection: 100,
  subscriptionCacheBytes: 8 * 1024 * 1024,
  headersTimeoutSeconds: 10,
  requestTimeoutSeconds: 30,
  idleTimeoutSeconds: 120,
  maxBufferedBytes: 4 * 1024 * 1024,
  replaySeconds: 10,
};
