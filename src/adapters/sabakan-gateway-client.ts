import { ClientError, GraphQLClient } from "graphql-request";
import { BoundExceededError, boundedFetch } from "./bounded-fetch.js";
import { FetchSlots } from "./fetch-slots.js";
import { sabakanEndpoint, type SabakanClientOptions } from "./sabakan-client.js";

/** sabakan.max_concurrent_requests when the config leaves it out. */
const DEFAULT_MAX_CONCURRENT = 4;

/** One error as sabakan reported it. */
export interface SabakanGraphQLError {
  readonly message: string;
  readonly path?: ReadonlyArray<string | number>;
  readonly extensions?: Record<string, unknown>;
}

/** sabakan's answer to a forwarded document: its data and its errors, as it sent them. */
export interface SabakanAnswer {
  readonly data: Record<string, unknown> | null;
  readonly errors: readonly SabakanGraphQLError[];
}

/** sabakan could not be asked (unreachable, timeout, oversized or unreadable answer); the message says which. */
export class SabakanUnavailableError extends Error {
  override readonly name = "SabakanUnavailableError";
}

/**
 * Sends documents to sabakan as they are and returns its data and errors without interpreting them, so the gateway
 * can answer exactly what sabakan answered. HTTP errors that carry GraphQL errors (sabakan's 422) come back as those
 * errors; anything else is a SabakanUnavailableError.
 */
export class SabakanGatewayClient {
  private readonly client: GraphQLClient;
  private readonly slots: FetchSlots;
  readonly endpoint: string;

  /**
   * `maxConcurrent` (sabakan.max_concurrent_requests) bounds the fetches in flight for every client of the API
   * together; past it a fetch waits at most the sabakan timeout, behind at most 16 times as many, else is refused
   * with a SlotsFullError.
   */
  constructor(options: SabakanClientOptions & { readonly maxConcurrent?: number }) {
    this.endpoint = sabakanEndpoint(options.url);
    this.client = new GraphQLClient(this.endpoint, { fetch: boundedFetch(options.maxResponseBytes, options.timeoutMs), errorPolicy: "all" });
    const max = options.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
    this.slots = new FetchSlots(max, 16 * max, options.timeoutMs, "sabakan.max_concurrent_requests");
  }

  execute(document: string, variables: Record<string, unknown>): Promise<SabakanAnswer> {
    return this.slots.run(() => this.send(document, variables));
  }

  private async send(document: string, variables: Record<string, unknown>): Promise<SabakanAnswer> {
    try {
      const res = await this.client.rawRequest<Record<string, unknown>>(document, variables);
      return { data: res.data ?? null, errors: (res.errors ?? []) as SabakanGraphQLError[] };
    } catch (err) {
      if (err instanceof ClientError && (err.response.errors?.length ?? 0) > 0) {
        return { data: null, errors: err.response.errors as SabakanGraphQLError[] };
      }
      if (err instanceof ClientError) throw new SabakanUnavailableError(`sabakan at ${this.endpoint} answered HTTP ${err.response.status}`);
      if (err instanceof BoundExceededError) throw new SabakanUnavailableError(`sabakan at ${this.endpoint}: ${err.message}`);
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new SabakanUnavailableError(`sabakan at ${this.endpoint} is unreachable: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
  }
}
