import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { unwrapResolverError } from "./apollo-server.js";
import { ForwardedSabakanError } from "../gateway/sabakan-forwarder.js";
import { NotLeaderError, StoreBusyError, StoreConflictError, StoreLimitError, StoreUnavailableError } from "../store/store-errors.js";

/**
 * The catalogue of API error codes. Like sabakan, kintsugi puts a SCREAMING_SNAKE code in `extensions.type`;
 * Apollo's `extensions.code` is kept (BAD_USER_INPUT for these, Apollo's own codes for its own errors). Errors that
 * sabakan returned through the gateway are passed on unchanged instead; SABAKAN_UNAVAILABLE says it could not be
 * asked.
 */
export const ERROR_TYPES = {
  NOT_FOUND: "no such object",
  INVALID_INDEX: "an index is a decimal number",
  INVALID_ADDRESS: "not an IPv4 or IPv6 address",
  REPAIR_PROCEDURE_NOT_FOUND: "no repair procedure lists the machine type",
  REPAIR_OPERATION_NOT_FOUND: "the machine type's procedure has no such operation",
  REPAIR_IMPORT_REFUSED:
    "the repair entries to import are not ckecli repair-queue list's JSON, or cannot be taken over now (this queue is enabled, the repair config lacks an operation or step, a machine has an unfinished entry on both sides); the message names each",
  INVALID_CONSTRAINT: "unknown constraint name or value out of range",
  INVALID_MACHINE_PARAMS: "a MachineParams value is out of range",
  INVALID_ARGUMENT: "an argument is out of range",
  INVALID_HOLD: "a machine hold's address, reason or until is not valid, or too many machines are held; the message names the field",
  SABAKAN_NOT_CONFIGURED: "kintsugi has no sabakan to forward to",
  INVALID_CLUSTER_TEMPLATE: "the cluster template breaks a rule; the message names each and its template",
  CLUSTER_GENERATION_UNAVAILABLE: "cluster generation is disabled, has no template, or has no sabakan",
  CLUSTER_ADOPTION_REFUSED:
    "the cluster configuration to adopt does not match sabakan's machines, the template or the constraints; the message names each problem",
  STORE_BUSY: "another process holds the SQLite database's write lock; nothing was changed, try again",
  STORE_UNAVAILABLE:
    "the store cannot be used now: etcd does not answer, or the SQLite file is read-only, full, failing or corrupt (GET /health says which); reads are answered where they can be, a write may or may not have happened (the message says), try again",
  STORE_CONFLICT: "the change kept meeting concurrent changes by other replicas and was given up; nothing was changed, try again",
  STORE_LIMIT: "etcd refused a write as too large for one transaction (its --max-txn-ops or --max-request-bytes); nothing of that write was changed",
  NOT_LEADER: "this replica is not the leader and the field needs the leader's workers; the message names the leader to ask",
  QUERY_TOO_COMPLEX: "the operation passes a limit on depth, aliases, directives, tokens, selections or cost; extensions.limit names its config key",
  LIMIT_EXCEEDED:
    "a limit on connections, subscriptions, message size, answer size or the nesting of variables was reached; extensions.limit names its config key",
  UNAUTHENTICATED: "no token where one is needed, or an unknown token (HTTP 401; graphql-ws closes with 4401)",
  FORBIDDEN: "the token's role does not include a field's role (the message names it), or a refused Host or Origin",
  INTERNAL_SERVER_ERROR: "unexpected; details are in the server log",
} as const;

export type ErrorType = keyof typeof ERROR_TYPES;

/** An error the client caused and can fix; its message is shown as is. Access errors come from the edge, never from here. */
export function apiError(type: Exclude<ErrorType, "INTERNAL_SERVER_ERROR" | StoreErrorType | "UNAUTHENTICATED" | "FORBIDDEN">, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { type, code: "BAD_USER_INPUT" } });
}

/**
 * A refusal by one of the `limits`: `limit` is the config key (e.g. "max_depth") that an operator would raise.
 * Its code is GRAPHQL_VALIDATION_FAILED for operations (they were refused before anything ran) and BAD_REQUEST
 * otherwise.
 */
export function limitError(type: "QUERY_TOO_COMPLEX" | "LIMIT_EXCEEDED", limit: string, message: string): GraphQLError {
  const code = type === "QUERY_TOO_COMPLEX" ? "GRAPHQL_VALIDATION_FAILED" : "BAD_REQUEST";
  return new GraphQLError(message, { extensions: { type, code, limit: `limits.${limit}` } });
}

/**
 * Apollo's `formatError`: errors from the catalogue and Apollo's own request errors pass through; anything else
 * is logged with its stack and masked, so internals (SQL, file paths) never reach a client.
 */
export function formatError(log: (err: unknown) => void) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    // sabakan's own errors reach the client as sabakan sent them: no code of Apollo's is added.
    if (original instanceof ForwardedSabakanError) {
      return {
        message: original.message,
        ...(formatted.locations && { locations: formatted.locations }),
        ...(formatted.path && { path: formatted.path }),
        ...(original.sabakanExtensions && { extensions: original.sabakanExtensions }),
      };
    }
    if (original instanceof GraphQLError) {
      if (original.extensions?.["type"]) return formatted;
      // A GraphQLError without our type is Apollo's or graphql-js's own (parse, validation, variable coercion).
      if (formatted.extensions?.["code"] !== "INTERNAL_SERVER_ERROR") return formatted;
    }
    const type = storeErrorType(original);
    if (type !== null) {
      // The store's own messages name etcd's endpoints and the cause, never a key, a value, a path or SQL; an
      // unavailable store is logged with its cause, which may.
      if (type === "STORE_UNAVAILABLE") log(original);
      return {
        message: (original as Error).message,
        ...(formatted.locations && { locations: formatted.locations }),
        ...(formatted.path && { path: formatted.path }),
        extensions: { type, code: type },
      };
    }
    log(original);
    const extensions = { type: "INTERNAL_SERVER_ERROR", code: "INTERNAL_SERVER_ERROR" };
    return {
      message: "internal server error",
      ...(formatted.locations && { locations: formatted.locations }),
      ...(formatted.path && { path: formatted.path }),
      extensions,
    };
  };
}

type StoreErrorType = "STORE_BUSY" | "STORE_UNAVAILABLE" | "STORE_CONFLICT" | "STORE_LIMIT" | "NOT_LEADER";

/** The one mapping of the store's errors (src/store/store-errors.ts) to the catalogue; null for any other error. */
function storeErrorType(err: unknown): StoreErrorType | null {
  if (err instanceof StoreBusyError) return "STORE_BUSY";
  if (err instanceof StoreUnavailableError) return "STORE_UNAVAILABLE";
  if (err instanceof StoreConflictError) return "STORE_CONFLICT";
  if (err instanceof StoreLimitError) return "STORE_LIMIT";
  if (err instanceof NotLeaderError) return "NOT_LEADER";
  return null;
}
