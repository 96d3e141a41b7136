import { z } from "../support/zod.js";
import { MAX_TIMER_SECONDS, TIMER_TOO_LONG } from "./kintsugi-config.js";
import { DEFAULT_LIMITS, type Limits } from "./limits.js";

const positiveInt = z.int().gt(0);
// No longer than a timer can wait: node would close every connection at once instead.
const positiveSeconds = z.number().gt(0).max(MAX_TIMER_SECONDS, { error: TIMER_TOO_LONG });

/**
 * The `limits` section: what one client may make kintsugi spend. Every key has a default (see DEFAULT_LIMITS);
 * none can be switched off, only raised.
 */
export const limitsSection = z
  .strictObject({
    max_depth: positiveInt.default(DEFAULT_LIMITS.maxDepth),
    max_aliases: positiveInt.default(DEFAULT_LIMITS.maxAliases),
    max_directives: positiveInt.default(DEFAULT_LIMITS.maxDirectives),
    max_tokens: positiveInt.default(DEFAULT_LIMITS.maxTokens),
    max_selections: positiveInt.default(DEFAULT_LIMITS.maxSelections),
    max_variable_depth: positiveInt.default(DEFAULT_LIMITS.maxVariableDepth),
    max_cost: positiveInt.default(DEFAULT_LIMITS.maxCost),
    max_body_bytes: positiveInt.default(DEFAULT_LIMITS.maxBodyBytes),
    max_connections: positiveInt.default(DEFAULT_LIMITS.maxConnections),
    max_connections_per_address: positiveInt.default(DEFAULT_LIMITS.maxConnectionsPerAddress),
    max_subscriptions_per_connection: positiveInt.default(DEFAULT_LIMITS.maxSubscriptionsPerConnection),
    subscription_cache_bytes: positiveInt.default(DEFAULT_LIMITS.subscriptionCacheBytes),
    headers_timeout_seconds: positiveSeconds.default(DEFAULT_LIMITS.headersTimeoutSeconds),
    request_timeout_seconds: positiveSeconds.default(DEFAULT_LIMITS.requestTimeoutSeconds),
    idle_timeout_seconds: positiveSeconds.default(DEFAULT_LIMITS.idleTimeoutSeconds),
    max_buffered_bytes: positiveInt.default(DEFAULT_LIMITS.maxBufferedBytes),
    max_total_buffered_bytes: positiveInt.default(DEFAULT_LIMITS.maxTotalBufferedBytes),
    max_response_bytes: positiveInt.default(DEFAULT_LIMITS.maxResponseBytes),
    replay_seconds: positiveSeconds.default(DEFAULT_LIMITS.replaySeconds),
  })
  .refine((s) => s.headers_timeout_seconds <= s.request_timeout_seconds, {
    message: "must not be longer than limits.request_timeout_seconds (node requires it)",
    path: ["headers_timeout_seconds"],
  });

/** Renames the validated section into its camelCase form. */
export function toLimits(section: z.output<typeof limitsSection> | undefined): Limits {
  if (!section) return DEFAULT_LIMITS;
  return {
    maxDepth: section.max_depth,
    maxAliases: section.max_aliases,
    maxDirectives: section.max_directives,
    maxTokens: section.max_tokens,
    maxSelections: section.max_selections,
    maxVariableDepth: section.max_variable_depth,
    maxCost: section.max_cost,
    maxBodyBytes: section.max_body_bytes,
    maxConnections: section.max_connections,
    maxConnectionsPerAddress: section.max_connections_per_address,
    maxSubscriptionsPerConnection: section.max_subscriptions_per_connection,
    subscriptionCacheBytes: section.subscription_cache_bytes,
    headersTimeoutSeconds: section.headers_timeout_seconds,
    requestTimeoutSeconds: section.request_timeout_seconds,
    idleTimeoutSeconds: section.idle_timeout_seconds,
    maxBufferedBytes: section.max_buffered_bytes,
    maxTotalBufferedBytes: section.max_total_buffered_bytes,
    maxResponseBytes: section.max_response_bytes,
    replaySeconds: section.replay_seconds,
  };
}
