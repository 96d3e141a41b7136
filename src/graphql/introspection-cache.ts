import { HeaderMap, type ApolloServerPlugin } from "./apollo-server.js";
import { Kind, type FormattedExecutionResult, type OperationDefinitionNode } from "graphql";
import { jsonBytesUpTo } from "./limits/response-size.js";

/** Distinct introspection requests kept (GraphiQL, codegen and IDEs send a handful of documents). */
const KEPT_ANSWERS = 16;

/** The memory the kept answers may hold, as JSON (kintsugi's full introspection is about 300 KB). */
const KEPT_BYTES = 8 * 1024 * 1024;

/** The longest request key (document, operation name, variables) kept; a longer request is answered afresh. */
const MAX_KEY_CHARS = 64 * 1024;

/** Whether every root field of `operation` is introspection's (`__schema`, `__type`, `__typename`), as written. */
function introspectsOnly(operation: OperationDefinitionNode): boolean {
  return operation.operation === "query" && operation.selectionSet.selections.every((s) => s.kind === Kind.FIELD && s.name.value.startsWith("__"));
}

/**
 * Answers a query that only introspects from the answer to the same request before: the schema never changes while
 * kintsugi runs, and executing a full introspection (which GraphiQL and tools send on every load) took about 100 ms of
 * the event loop each, four at once p99 420 ms. Runs after the role check (Apollo's `didResolveOperation`), so who may
 * introspect is still decided per request; only an answer without errors is kept, by document, operation name and
 * variables, at most KEPT_ANSWERS of them and KEPT_BYTES (past either the cache starts over).
 */
export function introspectionCachePlugin<Context extends object>(): ApolloServerPlugin<Context> {
  const kept = new Map<string, FormattedExecutionResult>();
  let keptBytes = 0;
  return {
    async requestDidStart() {
      let key: string | null = null;
      let fromCache = false;
      return {
        async responseForOperation({ operation, source, request }) {
          // Apollo asks even when the document names no operation it can run (two operations, no operationName): its
          // own 400 follows.
          if ((operation as OperationDefinitionNode | undefined) === undefined || !introspectsOnly(operation)) return null;
          const candidate = `${request.operationName ?? ""}\u0000${JSON.stringify(request.variables ?? {})}\u0000${source}`;
          if (candidate.length > MAX_KEY_CHARS) return null;
          key = candidate;
          const answer = kept.get(key);
          if (answer === undefined) return null;
          fromCache = true;
          return { http: { status: undefined, headers: new HeaderMap() }, body: { kind: "single", singleResult: answer } };
        },
        async willSendResponse({ response }) {
          if (key === null || fromCache || response.body.kind !== "single") return;
          const answer = response.body.singleResult;
          if (answer.errors !== undefined) return;
          const bytes = jsonBytesUpTo(answer, KEPT_BYTES);
          if (bytes > KEPT_BYTES) return;
          if (kept.size >= KEPT_ANSWERS || keptBytes + bytes > KEPT_BYTES) {
            kept.clear();
            keptBytes = 0;
          }
          kept.set(key, answer);
          keptBytes += bytes;
        },
      };
    },
  };
}
