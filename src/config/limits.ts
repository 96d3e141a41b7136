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
  /**
   * Selections per document, fragments expanded, with fields that share a response name in one selection set
   * counted by the comparisons validation makes between them (see selection-count.ts): checked before validation.
   */
  readonly maxSelections: number;
  /** Deepest nesting of a request's variables (and extensions), as JSON: a deeper request is refused unread. */
  readonly maxVariableDepth: number;
  /** Estimated cost of an operation (see operation-cost.ts: lists multiply by their real bounds, joins weigh a fleet). */
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
  /** A WebSocket whose client has not read this much of what it was sent is closed: its client stopped reading. */
  readonly maxBufferedBytes: number;
  /**
   * What every WebSocket connection together may hold queued in kintsugi's memory (sent, not yet taken by the
   * kernel): past it, the connections holding the most are closed first.
   */
  readonly maxTotalBufferedBytes: number;
  /** Largest answer, as JSON: a larger one is replaced by an error before it is serialised. */
  readonly maxResponseBytes: number;
  /** Time one replay (simulateAutoRepair) may take in its worker thread; one runs at a time. */
  readonly replaySeconds: number;
}

/**
 * Defaults: above what kintsugi's CLI, the status page, the alert bridge, GraphiQL and CKE send, far below what takes
 * the server down. GraphiQL's introspection query is the deepest: 15 fields, and weighs 469 selections; 30 aliases
 * of every machine field weigh 960, a field of one subfield written 1,240 times 3 million (and validating it took a
 * second). Variables nest 4 deep at most (a MachineParams' labels). Costs are estimated with lists at their
 * real bounds: over a fleet of 10,000 machines CKE's own `searchMachines` is estimated at 530,000, the status page's
 * snapshot at 543,000, GraphiQL's overview at 934,000 and the costliest CLI documents (`auto-repair outcomes`
 * with its default of 20, `health-check list`) at 1,300,000; one `searchMachines` with every field costs 1,130,000
 * (test/graphql/operation-cost.test.ts lists them all). A fleet much larger than 20,000 machines needs a higher
 * max_cost. The largest answer a real page asks for is one `searchMachines` with every field: 4.6 MB over 10,000
 * machines, so 16 MiB holds it for 20,000 with room (and an answer of 16 MiB holds about 100 MB while it is built).
 * Every connection at its max_buffered_bytes would be max_connections x 4 MiB, 4 GiB: all of them together keep at most
 * 64 MiB queued (sixteen stalled connections at their bound), inside the server's memory goal of 500 MB.
 */
export const DEFAULT_LIMITS: Limits = {
  maxDepth: 20,
  maxAliases: 30,
  maxDirectives: 50,
  maxTokens: 5_000,
  maxSelections: 2_000,
  maxVariableDepth: 32,
  maxCost: 3_000_000,
  maxBodyBytes: 1024 * 1024,
  maxConnections: 1_000,
  maxConnectionsPerAddress: 100,
  maxSubscriptionsPerConnection: 100,
  subscriptionCacheBytes: 8 * 1024 * 1024,
  headersTimeoutSeconds: 10,
  requestTimeoutSeconds: 30,
  idleTimeoutSeconds: 120,
  maxBufferedBytes: 4 * 1024 * 1024,
  maxTotalBufferedBytes: 64 * 1024 * 1024,
  maxResponseBytes: 16 * 1024 * 1024,
  replaySeconds: 10,
};
